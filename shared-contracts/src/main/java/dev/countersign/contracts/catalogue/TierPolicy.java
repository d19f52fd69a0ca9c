package dev.countersign.contracts.catalogue;

import java.math.BigDecimal;

/**
 * The tenant's knobs the tier rules read.
 *
 * @param highImpactThreshold
 *            amounts at or above it make a money action HIGH (in the wallet's currency)
 */
public record TierPolicy(BigDecimal highImpactThreshold) {

    public static final TierPolicy DEFAULT = new TierPolicy(new BigDecimal("500.00"));
}
