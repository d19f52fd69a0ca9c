package dev.countersign.contracts.catalogue;

/**
 * One parameter of an action kind, as its declaration lists it.
 *
 * @param maxLength
 *            for TEXT and LINES, the longest value accepted (in characters, after trimming); ignored otherwise
 * @param refersTo
 *            the type of row the value is the id of ({@code wallet}), which a person's page names instead of the id
 *            ({@link Names}); null: shown as it is
 * @param picker
 *            the agent offers the value as an enum of the turn's live values: {@code wallet} (argument {@code wallet},
 *            the user's wallets by name) or {@code category}; null: free text
 * @param defaultValue
 *            what the agent fills in when the model leaves the parameter out: {@code today} (the date); null: none
 */
public record ParamSpec(String name, ParamType type, boolean required, int maxLength, String description,
        String refersTo, String picker, String defaultValue) {

    /** The pickers an agent knows. */
    public static final String WALLET_PICKER = "wallet";
    public static final String CATEGORY_PICKER = "category";
    /** The defaults an agent knows. */
    public static final String TODAY = "today";
}
