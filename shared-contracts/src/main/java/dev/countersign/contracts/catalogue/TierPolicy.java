package dev.countersign.contracts.catalogue;

import java.math.BigDecimal;

import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;

/**
 * The tenant's knobs the tier rules read.
 *
 * @param highImpactThreshold
 *            amounts at or above it make a money action HIGH (in the wallet's currency)
 */
public record TierPolicy(
        @NotNull(message = TierPolicy.THRESHOLD) @Positive(message = TierPolicy.THRESHOLD) @Digits(integer = 12, fraction = 2, message = TierPolicy.THRESHOLD) BigDecimal highImpactThreshold) {

    static final String THRESHOLD = "must be a positive amount below 10^12 with at most two decimals";

    public static final TierPolicy DEFAULT = new TierPolicy(new BigDecimal("500.00"));
}
