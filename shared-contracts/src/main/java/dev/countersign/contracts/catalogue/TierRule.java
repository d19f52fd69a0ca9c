package dev.countersign.contracts.catalogue;

import java.math.BigDecimal;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Tier;

/**
 * How a kind's tier is judged, as its declaration says: its base tier, raised to HIGH when a money field it names is at
 * or above the tenant's threshold. A field is {@code params.<name>} (the proposal's value) or {@code before.<name>}
 * (the target row as staged, so editing a large amount down counts as much as editing a small one up).
 */
public record TierRule(Tier base, List<String> highAtThreshold) {

    public Tier tierFor(JsonNode normalisedParams, JsonNode targetBefore, TierPolicy policy) {
        for (String field : highAtThreshold) {
            JsonNode from = field.startsWith("before.") ? targetBefore : normalisedParams;
            String name = field.substring(field.indexOf('.') + 1);
            if (from != null && from.hasNonNull(name)
                    && new BigDecimal(from.get(name).asText()).compareTo(policy.highImpactThreshold()) >= 0) {
                return Tier.HIGH;
            }
        }
        return base;
    }
}
