package dev.countersign.contracts.api;

import java.math.BigDecimal;

/**
 * How much the tier rules may apply without a person (LOW actions on arrival, MEDIUM ones of a user who earned trust,
 * plan drafts): at most {@code *Count} actions and {@code *Amount} in money per chat turn, per user in any 24 hours and
 * per tenant in any 24 hours. An edit counts by the size of its change, a rename or a plan by count only. An action
 * beyond any bound is staged for a person with the reason. Amounts add up across currencies by face value.
 * <p>
 * The per-turn bound rests on the turn id the agent sends, so it holds for an honest agent only; the 24-hour bounds are
 * what limit a compromised one.
 */
public record AutoApplyBudget(
        Integer turnCount,
        BigDecimal turnAmount,
        Integer userDayCount,
        BigDecimal userDayAmount,
        Integer tenantDayCount,
        BigDecimal tenantDayAmount) {

    /** The largest count and amount an administrator may set. */
    public static final int MAX_COUNT = 100_000;
    public static final BigDecimal MAX_AMOUNT = new BigDecimal("1000000000");

    /** Null if every bound is present and in range; otherwise what is wrong. */
    public String problem() {
        if (turnCount == null || turnAmount == null || userDayCount == null || userDayAmount == null
                || tenantDayCount == null || tenantDayAmount == null) {
            return "every bound is required";
        }
        for (int count : new int[]{turnCount, userDayCount, tenantDayCount}) {
            if (count < 0 || count > MAX_COUNT) {
                return "counts are 0 to " + MAX_COUNT;
            }
        }
        for (BigDecimal amount : new BigDecimal[]{turnAmount, userDayAmount, tenantDayAmount}) {
            if (amount.signum() < 0 || amount.scale() > 2 || amount.compareTo(MAX_AMOUNT) > 0) {
                return "amounts are 0 to " + MAX_AMOUNT.toPlainString() + " with at most two decimals";
            }
        }
        return null;
    }
}
