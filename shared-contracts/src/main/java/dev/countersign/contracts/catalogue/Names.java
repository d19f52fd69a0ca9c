package dev.countersign.contracts.catalogue;

import java.util.Map;

/**
 * How an action's description refers to the rows it names. {@link #IDS} names them by id: the stored summary, which the
 * model may read, uses it (a wallet's name is text someone typed, and a name another user chose would taint the model's
 * context). A person's page names them by what they are called ({@link #of}).
 */
public interface Names {

    /** By id: "wallet 1f0c…", "transaction 7a2e…", "plan 9b41…". */
    Names IDS = new Names() {
    };

    default String wallet(String walletId) {
        return "wallet " + walletId;
    }

    default String transaction(String transactionId) {
        return "transaction " + transactionId;
    }

    default String plan(String planId) {
        return "plan " + planId;
    }

    /**
     * Names from what a page knows, by id; an id it does not know keeps its id.
     *
     * @param wallets
     *            wallet id to its name (shown quoted)
     * @param transactions
     *            transaction id to its words ({@link #expense})
     * @param plans
     *            plan id to its name
     */
    static Names of(Map<String, String> wallets, Map<String, String> transactions, Map<String, String> plans) {
        return new Names() {

            @Override
            public String wallet(String walletId) {
                // Quoted: a name is text someone typed (a model, through a rename, too), never part of the sentence.
                String name = wallets.get(walletId);
                return name == null ? Names.super.wallet(walletId) : "\"%s\"".formatted(name);
            }

            @Override
            public String transaction(String transactionId) {
                return transactions.getOrDefault(transactionId, Names.super.transaction(transactionId));
            }

            @Override
            public String plan(String planId) {
                String name = plans.get(planId);
                return name == null ? Names.super.plan(planId) : "plan \"%s\"".formatted(name);
            }
        };
    }

    /** A transaction in words: "the 12.50 coffee expense of 2026-11-29". */
    static String expense(String amount, String category, String occurredOn) {
        return "the %s %s expense of %s".formatted(amount, category, occurredOn);
    }
}
