package dev.countersign.contracts.catalogue;

import java.math.BigDecimal;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What applying an action of a kind spends of the tenant's auto-apply budget in money, besides one action: the money
 * parameter {@code param}, or with {@code changeFromBefore} the size of its change against the target as staged (an
 * edit's new category spends nothing). A kind that declares none spends no money.
 */
public record BudgetAmount(String param, boolean changeFromBefore) {

    /** Spends no money. */
    public static final BudgetAmount NONE = new BudgetAmount(null, false);

    public BigDecimal of(JsonNode params, JsonNode targetBefore) {
        if (param == null || params == null || !params.hasNonNull(param)) {
            return BigDecimal.ZERO;
        }
        BigDecimal amount = new BigDecimal(params.get(param).asText());
        if (!changeFromBefore) {
            return amount;
        }
        // Staged without a snapshot: the whole new amount counts, as the size of its change is unknown.
        return targetBefore == null || !targetBefore.hasNonNull(param)
                ? amount
                : amount.subtract(new BigDecimal(targetBefore.get(param).asText())).abs();
    }
}
