package dev.countersign.contracts.catalogue;

/** The value types a catalogue parameter may have. Every value travels as a JSON string in its normal form. */
public enum ParamType {
    /** A UUID in lower-case canonical form. */
    UUID,
    /** A positive decimal with at most two places, normalised to exactly two ("12.5" becomes "12.50"). */
    MONEY,
    /**
     * Free text without control characters or invisible formatting characters (see {@link InvisibleCharacters}),
     * trimmed, bounded by the parameter's maximum length.
     */
    TEXT,
    /** Like TEXT, but it may span lines: line feeds are kept (CR LF becomes LF); other control characters refused. */
    LINES,
    /** An ISO-8601 calendar date, {@code yyyy-MM-dd}. */
    DATE
}
