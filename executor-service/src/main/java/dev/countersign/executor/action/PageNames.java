package dev.countersign.executor.action;

import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.catalogue.Names;

/**
 * What a person's page calls the rows an action names: a wallet by its current name (and its owner, when it is not the
 * requester's), a transaction or a plan by what the action's staged target showed ({@link Names#expense}, the plan's
 * name). Anything it cannot name keeps its id. Only for people: the stored summary the model may read keeps ids
 * ({@link Names#IDS}).
 */
public final class PageNames {

    private final Map<String, Wallet> wallets;

    private PageNames(Map<String, Wallet> wallets) {
        this.wallets = wallets;
    }

    /** A wallet's name and owner. */
    record Wallet(String name, String owner) {
    }

    /** The tenant's wallets by id, as read (by {@link ActionReads}). */
    static PageNames of(Map<String, Wallet> wallets) {
        return new PageNames(Map.copyOf(wallets));
    }

    /** No names known: every row by its id. */
    public static PageNames none() {
        return new PageNames(Map.of());
    }

    /**
     * The names for one action, whose parameters and staged target ({@code targetBefore}, may be null) name its row.
     */
    Names forAction(String requester, JsonNode params, JsonNode targetBefore) {
        Map<String, Map<String, String>> words = new HashMap<>();
        Map<String, String> walletWords = new HashMap<>();
        wallets.forEach((id, wallet) -> walletWords.put(id, Names.wallet(wallet.name(), wallet.owner(), requester)));
        words.put("wallet", walletWords);
        if (targetBefore != null && params.hasNonNull("transactionId") && targetBefore.hasNonNull("amount")) {
            words.put("transaction", Map.of(params.get("transactionId").asText(), Names.expense(
                    targetBefore.get("amount").asText(), targetBefore.path("category").asText(),
                    targetBefore.path("occurredOn").asText())));
        }
        if (targetBefore != null && params.hasNonNull("planId") && targetBefore.hasNonNull("name")) {
            words.put("plan", Map.of(params.get("planId").asText(),
                    "plan " + Names.quoted(targetBefore.get("name").asText())));
        }
        return Names.of(words);
    }
}
