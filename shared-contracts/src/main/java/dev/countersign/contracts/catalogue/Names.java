package dev.countersign.contracts.catalogue;

/**
 * How an action's description refers to the rows it names. {@link #IDS} names them by id: the stored summary, which the
 * model may read, uses it (a wallet's name is text someone typed, and a name another user chose would taint the model's
 * context). A person's page names them by what they are called ({@code ActionView.headline}).
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
}
