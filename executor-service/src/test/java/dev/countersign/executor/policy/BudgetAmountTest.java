package dev.countersign.executor.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.Tier;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.action.ActionRow;

/** What an automatic application spends of the budget in money: an edit counts by the size of its change. */
class BudgetAmountTest {

    private static ActionRow action(String kind, String params, String before) {
        JsonNode beforeNode = before == null ? null : Json.read(before, JsonNode.class);
        return new ActionRow(UUID.randomUUID(), "t", "alice", null, null, kind, Tier.LOW, ActionStatus.PROPOSED,
                Json.read(params, JsonNode.class), "h", "s", Instant.now(), Instant.now(),
                null, null, null, null, null, null, beforeNode, false, null, null, null, null, null, null, null,
                null, List.of());
    }

    @Test
    void anExpenseSpendsItsAmount() {
        assertThat(AutoApply.budgetAmount(action(ShippedKinds.CREATE_TRANSACTION, "{\"amount\":\"12.50\"}", null)))
                .isEqualByComparingTo("12.50");
    }

    @Test
    void anEditSpendsTheSizeOfItsChangeEitherWay() {
        assertThat(AutoApply.budgetAmount(action(ShippedKinds.EDIT_TRANSACTION, "{\"amount\":\"40.00\"}",
                "{\"amount\":\"10.00\"}"))).isEqualByComparingTo("30.00");
        assertThat(AutoApply.budgetAmount(action(ShippedKinds.EDIT_TRANSACTION, "{\"amount\":\"1.00\"}",
                "{\"amount\":\"90.00\"}"))).isEqualByComparingTo("89.00");
        // A new note or category moves no money; an edit without a snapshot counts its whole new amount.
        assertThat(AutoApply.budgetAmount(action(ShippedKinds.EDIT_TRANSACTION, "{\"description\":\"tea\"}",
                "{\"amount\":\"90.00\"}"))).isEqualByComparingTo("0");
        assertThat(AutoApply.budgetAmount(action(ShippedKinds.EDIT_TRANSACTION, "{\"amount\":\"7.00\"}", null)))
                .isEqualByComparingTo("7.00");
    }

    @Test
    void renamesAndPlansSpendNoMoney() {
        assertThat(AutoApply.budgetAmount(action(ShippedKinds.RENAME_WALLET, "{\"name\":\"Rainy day\"}", null)))
                .isEqualByComparingTo("0");
        assertThat(AutoApply.budgetAmount(action(ShippedKinds.DRAFT_PLAN, "{\"name\":\"Base\"}", null)))
                .isEqualByComparingTo("0");
    }
}
