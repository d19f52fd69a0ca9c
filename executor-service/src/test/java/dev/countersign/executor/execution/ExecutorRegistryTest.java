package dev.countersign.executor.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.Egress;
import dev.countersign.executor.kind.ExternalKind;
import dev.countersign.executor.kind.KindAction;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kinds.fixture.wallet.shout.ShoutWalletKind;
import io.smallrye.mutiny.Uni;

/**
 * Which kinds can run here: an external kind only when its vendor is configured (staging rejects the rest); which parts
 * stop the start.
 */
class ExecutorRegistryTest {

    static ExternalKind external(String kind, boolean configured, Duration longestCall, int attempts) {
        return new ExternalKind() {

            @Override
            public String kind() {
                return kind;
            }

            @Override
            public RowOwner owner() {
                return RowOwner.nobody();
            }

            @Override
            public boolean isConfigured() {
                return configured;
            }

            @Override
            public int attempts() {
                return attempts;
            }

            @Override
            public Duration longestCall() {
                return longestCall;
            }

            @Override
            public Uni<JsonNode> call(KindAction action, Egress egress) {
                throw new AssertionError("never called");
            }
        };
    }

    private static ExternalKind external(String kind, boolean configured) {
        return external(kind, configured, Duration.ofSeconds(1), 1);
    }

    private static DatabaseKind database(String kind, RowOwner owner) {
        return database(kind, owner, kind.replace('.', '_') + "_write");
    }

    private static DatabaseKind database(String kind, RowOwner owner, String writeFunction) {
        return new DatabaseKind() {

            @Override
            public String kind() {
                return kind;
            }

            @Override
            public RowOwner owner() {
                return owner;
            }

            @Override
            public String writeFunction() {
                return writeFunction;
            }
        };
    }

    @Test
    void anExternalKindWhoseVendorIsNotConfiguredIsNotExecutable() {
        var registry = new ExecutorRegistry(List.of(), List.of(external(ShippedKinds.SEND_MAIL, false),
                external(ShippedKinds.CREATE_TICKET, true)));

        assertThat(registry.isExecutable(ShippedKinds.SEND_MAIL)).isFalse();
        assertThat(registry.externalFor(ShippedKinds.SEND_MAIL)).isEmpty();
        assertThat(registry.find(ShippedKinds.SEND_MAIL)).isPresent();
        assertThat(registry.isExecutable(ShippedKinds.CREATE_TICKET)).isTrue();
        assertThat(registry.isExecutable(ShippedKinds.CREATE_TRANSACTION)).isFalse();
    }

    @Test
    void twoExecutorsForOneKindOrAKindOutsideTheCatalogueStopTheStart() {
        assertThatThrownBy(() -> new ExecutorRegistry(List.of(), List.of(external(ShippedKinds.SEND_MAIL, true),
                external(ShippedKinds.SEND_MAIL, false)))).hasMessageContaining("Two executors");
        assertThatThrownBy(() -> new ExecutorRegistry(List.of(database(ShippedKinds.RENAME_WALLET,
                RowOwner.requester()), database(ShippedKinds.RENAME_WALLET, RowOwner.requester())), List.of()))
                .hasMessageContaining("Two executors");
        assertThatThrownBy(() -> new ExecutorRegistry(List.of(), List.of(external("mail.blast", true))))
                .hasMessageContaining("does not list");
    }

    /**
     * The declaration's domain decides auto-apply, the agent's offer and the database's guard: a part that runs the
     * other way than its declaration says stops the start.
     */
    @Test
    void aPartThatDisagreesWithItsDeclarationAboutBeingExternalStopsTheStart() {
        assertThatThrownBy(() -> new ExecutorRegistry(List.of(), List.of(external(ShippedKinds.RENAME_WALLET, true))))
                .hasMessageContaining("is external, but its declaration's domain is not external");
        assertThatThrownBy(() -> new ExecutorRegistry(List.of(database(ShippedKinds.SEND_MAIL, RowOwner.requester())),
                List.of())).hasMessageContaining("a database kind, but its declaration's domain is external");
    }

    /** The decision rule reads a missing owner as the requester's own: a database kind must say whose row it writes. */
    @Test
    void aDatabaseKindWritingARowNobodyOwnsStopsTheStart() {
        assertThatThrownBy(() -> new ExecutorRegistry(List.of(database(ShippedKinds.RENAME_WALLET,
                RowOwner.nobody())), List.of())).hasMessageContaining("writes a row nobody owns");

        var registry = new ExecutorRegistry(List.of(database(ShippedKinds.DRAFT_PLAN, RowOwner.requester())),
                List.of());
        assertThat(registry.forKind(ShippedKinds.DRAFT_PLAN)).isPresent();
    }

    /**
     * The gate calls a kind's write function by its name: two kinds naming one function, or a name that is not a plain
     * SQL identifier, stop the start.
     */
    @Test
    void writeFunctionsAreOnePerKindAndPlainNames() {
        assertThatThrownBy(() -> new ExecutorRegistry(List.of(
                database(ShippedKinds.RENAME_WALLET, RowOwner.requester(), "shared_write"),
                database(ShippedKinds.DRAFT_PLAN, RowOwner.requester(), "shared_write")), List.of()))
                .hasMessageContaining("name one function");
        assertThatThrownBy(() -> new ExecutorRegistry(List.of(
                database(ShippedKinds.RENAME_WALLET, RowOwner.requester(), "pg_catalog.pg_sleep")), List.of()))
                .hasMessageContaining("lower-case SQL name");
        var oneForBoth = new ShoutWalletKind() {

            @Override
            public String undoFunction() {
                return writeFunction();
            }
        };
        assertThatThrownBy(() -> new ExecutorRegistry(List.of(oneForBoth), List.of()))
                .hasMessageContaining("one function for its write and its undo");
    }
}
