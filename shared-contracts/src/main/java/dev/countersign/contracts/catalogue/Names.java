package dev.countersign.contracts.catalogue;

import java.util.Map;

/**
 * How an action's headline refers to the rows its parameters name ({@link ParamSpec#refersTo()}). {@link #IDS} names
 * them by id: the stored summary, which the model may read, uses it (a wallet's name is text someone typed, and a name
 * another user chose would taint the model's context). A person's page names them by what they are called
 * ({@link #of}).
 */
public interface Names {

    /** By id: "wallet 1f0c…", "transaction 7a2e…". */
    Names IDS = (rowType, id) -> rowType + " " + id;

    /** What the headline says for the row of {@code rowType} with {@code id}. */
    String name(String rowType, String id);

    /**
     * Names from what a page knows: row type to id to the words a person reads; a row it does not know keeps its id.
     * The words are the page's to shape (a name someone typed is shown quoted, never as part of the sentence).
     */
    static Names of(Map<String, Map<String, String>> wordsByType) {
        return (rowType, id) -> wordsByType.getOrDefault(rowType, Map.of()).getOrDefault(id, IDS.name(rowType, id));
    }

    /**
     * Text someone typed, as a headline shows it: quoted, its own quotes escaped, so a name (a model's, through a
     * rename, too) is never part of the sentence around it.
     */
    static String quoted(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /**
     * A wallet in words for an action {@code requester} asked for: its quoted name, and whose it is when it is not the
     * requester's ("bob's \"Savings\""), so a person never takes another person's wallet for the requester's own.
     */
    static String wallet(String name, String owner, String requester) {
        return (owner == null || owner.equals(requester) ? "" : owner + "'s ") + quoted(name);
    }

    /** A transaction in words: "the 12.50 coffee expense of 2026-11-29". */
    static String expense(String amount, String category, String occurredOn) {
        return "the %s %s expense of %s".formatted(amount, category, occurredOn);
    }
}
