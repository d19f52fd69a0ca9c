package dev.countersign.contracts;

/** The one rule for tenant, user and conversation identifiers, wherever they arrive from. */
public final class Identifiers {

    public static final int MAX_LENGTH = 128;

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
