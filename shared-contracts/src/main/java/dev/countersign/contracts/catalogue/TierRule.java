package dev.countersign.contracts.catalogue;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Tier;

/** Decides an action's tier from its validated parameters and the tenant's policy. */
@FunctionalInterface
public interface TierRule {

    Tier tierFor(JsonNode normalisedParams, TierPolicy policy);
}
