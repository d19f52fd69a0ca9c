package dev.countersign.executor.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.external.ExternalExecutor;
import dev.countersign.executor.external.egress.GateScope;
import io.smallrye.mutiny.Uni;

/** Which kinds can run here: an external kind only when its vendor is configured (staging rejects the rest). */
class ExecutorRegistryTest {

    private static ExternalExecutor external(String kind, boolean configured) {
        return new ExternalExecutor() {

            @Override
            public String kind() {
                return kind;
            }

            @Override
            public boolean isConfigured() {
                return configured;
            }

            @Override
            public int attempts() {
                return 1;
            }

            @Override
            public Uni<JsonNode> call(ActionRow action, GateScope scope) {
                throw new AssertionError("never called");
            }
        };
    }

    @Test
    void anExternalKindWhoseVendorIsNotConfiguredIsNotExecutable() {
        var registry = new ExecutorRegistry(List.of(), List.of(external(ActionCatalogue.SEND_MAIL, false),
                external(ActionCatalogue.CREATE_TICKET, true)));

        assertThat(registry.isExecutable(ActionCatalogue.SEND_MAIL)).isFalse();
        assertThat(registry.externalFor(ActionCatalogue.SEND_MAIL)).isEmpty();
        assertThat(registry.isExecutable(ActionCatalogue.CREATE_TICKET)).isTrue();
        assertThat(registry.isExecutable(ActionCatalogue.CREATE_TRANSACTION)).isFalse();
    }

    @Test
    void twoExecutorsForOneKindOrAKindOutsideTheCatalogueStopTheStart() {
        assertThatThrownBy(() -> new ExecutorRegistry(List.of(), List.of(external(ActionCatalogue.SEND_MAIL, true),
                external(ActionCatalogue.SEND_MAIL, false)))).hasMessageContaining("Two executors");
        assertThatThrownBy(() -> new ExecutorRegistry(List.of(), List.of(external("mail.blast", true))))
                .hasMessageContaining("does not list");
    }
}
