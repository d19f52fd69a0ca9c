package dev.countersign.contracts.catalogue;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Tier;

/**
 * Decides an action's tier from its validated parameters, the target row as staged (the fields a person is shown; null
 * for kinds that change no existing row) and the tenant's policy.
 */
@FunctionalInterface
public interface TierRule {

    Tier tierFor(JsonNode normalisedParams, JsonNode targetBefore, TierPolicy policy);
}
