package dev.countersign.executor.action;

import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.catalogue.Names;

/**
 * What a person's page calls the rows an action names: a wallet by its current name, a transaction or a plan by what
 * the action's staged target showed ({@link Names#expense}, the plan's name). Anything it cannot name keeps its id.
 * Only for people: the stored summary the model may read keeps ids ({@link Names#IDS}).
 */
public final class PageNames {

    private final Map<String, String> walletNames;

    private PageNames(Map<String, String> walletNames) {
        this.walletNames = walletNames;
    }

    /** The tenant's wallet names by id, as read (by {@link ActionReads}). */
    static PageNames of(Map<String, String> walletNames) {
        Map<String, String> quoted = new HashMap<>();
        // Quoted: a name is text someone typed (a model, through a rename, too), never part of the sentence.
        walletNames.forEach((id, name) -> quoted.put(id, "\"%s\"".formatted(name)));
        return new PageNames(Map.copyOf(quoted));
    }

    /** No names known: every row by its id. */
    public static PageNames none() {
        return new PageNames(Map.of());
    }

    /**
     * The names for one action, whose parameters and staged target ({@code targetBefore}, may be null) name its row.
     */
    Names forAction(JsonNode params, JsonNode targetBefore) {
        Map<String, Map<String, String>> words = new HashMap<>();
        words.put("wallet", walletNames);
        if (targetBefore != null && params.hasNonNull("transactionId") && targetBefore.hasNonNull("amount")) {
            words.put("transaction", Map.of(params.get("transactionId").asText(), Names.expense(
                    targetBefore.get("amount").asText(), targetBefore.path("category").asText(),
                    targetBefore.path("occurredOn").asText())));
        }
        if (targetBefore != null && params.hasNonNull("planId") && targetBefore.hasNonNull("name")) {
            words.put("plan", Map.of(params.get("planId").asText(),
                    "plan \"%s\"".formatted(targetBefore.get("name").asText())));
        }
        return Names.of(words);
    }
}
