package dev.countersign.contracts.catalogue;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Tier;

/**
 * One kind of write the agent may propose, as its declaration ({@code countersign/kinds/<kind>.json}) says: data only,
 * read by both services.
 *
 * @param label
 *            what a person's page calls the kind ("Rename a wallet")
 * @param tool
 *            the name of the agent's tool that proposes it
 * @param editableFields
 *            the fields of the target row an action of this kind may change, in the order of the parameters; empty for
 *            kinds that change no existing row's fields
 * @param budgetAmount
 *            what applying it spends of the auto-apply budget in money
 * @param headline
 *            the template of the sentence a person approves ({@link Headline})
 * @param personEditable
 *            the parameters a person who may decide a proposed action may change before approving it (edit before
 *            approve, docs/approvals.md), in the order of the parameters; empty: no edit
 */
public record ActionDefinition(
        String kind,
        String domain,
        String label,
        String description,
        String tool,
        List<ParamSpec> params,
        Set<String> editableFields,
        TierRule tierRule,
        BudgetAmount budgetAmount,
        String headline,
        Set<String> personEditable) {

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
        return Headline.render(this, normalisedParams, names);
    }
}
