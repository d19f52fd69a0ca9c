package dev.countersign.contracts.catalogue;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Tier;

/**
 * One kind of write the agent may propose.
 *
 * @param editableFields
 *            the fields of the target row an action of this kind may change; empty for creates
 * @param describer
 *            renders validated parameters as the sentence a person approves
 */
public record ActionDefinition(
        String kind,
        String domain,
        String description,
        List<ParamSpec> params,
        Set<String> editableFields,
        TierRule tierRule,
        BiFunction<JsonNode, Names, String> describer) {

    public Optional<ParamSpec> param(String name) {
        return params.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /** The tier of a kind that changes no existing row (or before its row was read). */
    public Tier tierFor(JsonNode normalisedParams, TierPolicy policy) {
        return tierFor(normalisedParams, null, policy);
    }

    public Tier tierFor(JsonNode normalisedParams, JsonNode targetBefore, TierPolicy policy) {
        return tierRule.tierFor(normalisedParams, targetBefore, policy);
    }

    /** Whether actions of this kind reach outside the database (e-mail, tickets): claimed, called, recorded. */
    public boolean isExternal() {
        return ActionCatalogue.EXTERNAL_DOMAIN.equals(domain);
    }

    /** What the action does, in words, naming rows by id (the stored summary). */
    public String describe(JsonNode normalisedParams) {
        return describe(normalisedParams, Names.IDS);
    }

    /** What the action does, in words, naming rows as {@code names} says. */
    public String describe(JsonNode normalisedParams, Names names) {
        return describer.apply(normalisedParams, names);
    }
}
