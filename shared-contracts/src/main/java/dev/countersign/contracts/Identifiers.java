package dev.countersign.contracts;

/** The one rule for tenant, user and conversation identifiers, wherever they arrive from. */
public final class Identifiers {

    public static final int MAX_LENGTH = 128;

    private static final java.util.regex.Pattern CONVERSATION_ID = java.util.regex.Pattern
            .compile("[A-Za-z0-9_-]{1,64}");

    /** A conversation id as the agent's API accepts it: 1 to 64 letters, digits, '-' or '_'. */
    public static boolean isConversationId(String id) {
        return id != null && CONVERSATION_ID.matcher(id).matches();
    }

    private Identifiers() {
    }

    /**
     * 1 to {@value #MAX_LENGTH} characters, not blank, no control characters (a NUL above all, which PostgreSQL refuses
     * in text and which would make a record fail forever).
     */
    public static boolean isPrintableId(String id) {
        return id != null && !id.isBlank() && id.length() <= MAX_LENGTH
                && id.codePoints().noneMatch(Character::isISOControl);
    }
}
