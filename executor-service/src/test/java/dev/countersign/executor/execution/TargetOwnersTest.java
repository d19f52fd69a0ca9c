package dev.countersign.executor.execution;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;

/**
 * Every kind of the catalogue says whose row it writes: a kind left out would stage with no owner, which the decision
 * rule reads as the requester's own (a write nobody else owns). Only external sends write rows nobody owns.
 */
class TargetOwnersTest {

    @Test
    void everyKindButTheExternalSendsDeclaresItsRowsOwner() {
        Targets targets = new Targets();
        for (ActionDefinition kind : ActionCatalogue.all()) {
            assertThat(targets.declaresOwner(kind.kind())).as(kind.kind()).isEqualTo(!kind.isExternal());
        }
    }
}
