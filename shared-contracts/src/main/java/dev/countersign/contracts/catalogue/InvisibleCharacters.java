package dev.countersign.contracts.catalogue;

import java.util.Locale;

/**
 * Characters a person cannot see but that change what they see: bidi overrides and isolates (which reorder the text
 * around them, so "pay 10.00 to Bob" can display as something else), zero-width spaces and joiners, the byte-order
 * mark, the soft hyphen, and the rest of Unicode's format category (Cf), plus line and paragraph separators and
 * unpaired surrogates.
 * <p>
 * Text parameters containing one are <em>refused</em>, not stripped: the parameters hashed into {@code paramsHash} are
 * exactly what was sent, so the hash a person's approval pins is of the text they were shown. Both services apply this
 * one rule through {@link ActionCatalogue#validate}: the agent's tools refuse the argument, the executor rejects the
 * proposal (and an import row).
 * <p>
 * Limits: this does not catch look-alike letters from other scripts (a Cyrillic "а" for a Latin "a"), combining marks,
 * or visible characters that merely render as blanks in some fonts; a person still reads the text in the font of their
 * browser. Emoji built with the zero-width joiner (U+200D, e.g. family emoji) are refused with the rest of Cf.
 * Variation selectors (U+FE00 to U+FE0F, as in "☕️") are allowed: they choose a glyph's style and reorder nothing.
 */
public final class InvisibleCharacters {

    private InvisibleCharacters() {
    }

    /** Whether {@code codePoint} is refused in a text parameter (line feeds and other controls are judged apart). */
    public static boolean isInvisible(int codePoint) {
        return switch (Character.getType(codePoint)) {
            case Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR, Character.SURROGATE -> true;
            // Hangul fillers: letters by category, blank on screen, and a known way to forge an "empty" name.
            default -> codePoint == 0x115F || codePoint == 0x1160 || codePoint == 0x3164 || codePoint == 0xFFA0;
        };
    }

    /** The first refused code point of {@code text}, or -1 when there is none. */
    public static int first(String text) {
        return text.codePoints().filter(InvisibleCharacters::isInvisible).findFirst().orElse(-1);
    }

    /** The refusal a user or the model reads: which character, and what to do instead. */
    static String refusal(int codePoint) {
        return ("must not contain invisible or formatting characters (found U+%04X%s);"
                + " write the text without bidi overrides, zero-width characters or soft hyphens")
                .formatted(codePoint, name(codePoint));
    }

    private static String name(int codePoint) {
        String name = Character.getName(codePoint);
        return name == null ? "" : " " + name.toLowerCase(Locale.ROOT);
    }
}
