package dev.countersign.devsupport.testing.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * Hostile pieces of input, drawn from a seeded {@link Random}: strings (SQL-looking text, unicode edge cases, control
 * characters, huge), JSON values of every type, malformed JSON and identifiers that are almost or not at all UUIDs.
 * Strings are returned as JSON text where escapes matter (a lone surrogate exists only as an escape in valid JSON), and
 * byte-level damage (overlong UTF-8) is applied by {@link #corruptBytes(byte[])}.
 */
public final class HostileValues {

    /** 1 MB: above any field limit of the services, below the HTTP body limit, so the application must refuse it. */
    public static final int HUGE = 1 << 20;

    private static final List<String> SQL = List.of("'; DROP TABLE actions; --", "1' OR '1'='1", "\" OR 1=1 --",
            "'); DELETE FROM transactions; --", "$$; TRUNCATE wallets CASCADE; $$", "1; SELECT pg_sleep(30)--",
            "' UNION SELECT password FROM pg_shadow --", "%' AND tenant_id <> '%", "\\'; COMMIT; DROP SCHEMA public;");
    private static final List<String> UNICODE = List.of("\u0000", "a\u0000b", "\u202Eevil\u202C.exe", "\u200F\u200E",
            "\uD83D\uDE00\uD83D\uDCA5", "\uFEFFbom", "e\u0301\u0301\u0301", "\uD835\uDD52\uD835\uDD53", "\u2028\u2029",
            "\u0007\u001b[31mred", "\uFFFF\uFFFE", "\u0130\u0131", "\u00A0 \u3000", "ﷺ", "\u0085line", "\\",
            "\"", "</script><script>alert(1)</script>", "{{7*7}}", "${jndi:ldap://x/a}", "../../etc/passwd");
    /** JSON escapes PostgreSQL and Java treat badly: lone surrogates, NUL, a reversed pair. */
    private static final List<String> JSON_ESCAPES = List.of("\\ud800", "\\udfff", "\\u0000", "\\udc00\\ud800",
            "a\\ud83d", "\\u202e", "\\uffff");
    private static final List<String> MALFORMED = List.of("", " ", "{", "}", "[", "{\"a\":}", "{\"a\" 1}", "{'a':1}",
            "{\"a\":1,}", "[1,2,]", "nul", "tru", "NaN", "Infinity", "-", "01", "1e99999",
            "{\"a\":\"unterminated", "{\"a\":\"\\x41\"}", "{\"a\":\"\\u12\"}", "/* c */ {}", "{\"a\":1 // c\n}",
            "\uFEFF{}", "{\"\":", "\"\\", "{\"a\":[}", "{\"a\":{\"b\":[1,{]}}", "<xml/>", "a=1&b=2", "\u0000");

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final Random random;
    private final int hugeLength;

    public HostileValues(Random random) {
        this(random, HUGE);
    }

    /**
     * @param hugeLength
     *            the length of the occasional huge string ({@link #HUGE} over HTTP; less on Kafka, where a record and
     *            its dead-letter copy must stay under the 1 MB limit of the producers)
     */
    public HostileValues(Random random, int hugeLength) {
        this.random = random;
        this.hugeLength = hugeLength;
    }

    public Random random() {
        return random;
    }

    public boolean chance(double probability) {
        return random.nextDouble() < probability;
    }

    public <T> T pick(List<T> values) {
        return values.get(random.nextInt(values.size()));
    }

    /** A UUID drawn from the seeded generator (so a replay names the same one). */
    public UUID uuid() {
        return new UUID(random.nextLong(), random.nextLong());
    }

    /** A hostile string value (not JSON text). */
    public String string() {
        return switch (random.nextInt(9)) {
            case 0 -> pick(SQL);
            case 1 -> pick(UNICODE);
            case 2 -> pick(SQL) + pick(UNICODE);
            case 3 -> "x".repeat(random.nextInt(5000) + 300);
            case 4 -> badId();
            case 5 -> "";
            case 6 -> " \t\n ";
            case 7 -> String.valueOf(random.nextLong());
            default -> pick(UNICODE).repeat(random.nextInt(50) + 1);
        };
    }

    /** The same as {@link #string()}, occasionally huge (1 MB unless the constructor said otherwise). */
    public String stringMaybeHuge() {
        return chance(0.003) ? "h".repeat(hugeLength) : string();
    }

    /** An identifier that is not a UUID, or almost one, or a UUID nobody has. */
    public String badId() {
        String uuid = uuid().toString();
        return switch (random.nextInt(12)) {
            case 0 -> uuid.replace("-", "");
            case 1 -> uuid + "0";
            case 2 -> uuid.substring(1);
            case 3 -> uuid.toUpperCase();
            case 4 -> "{" + uuid + "}";
            case 5 -> uuid.replace('a', 'g');
            case 6 -> "00000000-0000-0000-0000-000000000000";
            case 7 -> "-1";
            case 8 -> uuid + "'; DROP TABLE actions; --";
            case 9 -> "9".repeat(random.nextInt(3000) + 40);
            case 10 -> uuid.replace("-", "\u2010");
            default -> uuid;
        };
    }

    /** A JSON string literal, sometimes with escapes a Java string cannot carry (lone surrogates) or a huge body. */
    public String stringLiteral() {
        if (chance(0.15)) {
            return "\"" + pick(JSON_ESCAPES) + quoteContent(string()) + "\"";
        }
        return quote(stringMaybeHuge());
    }

    /** Any JSON value as text: scalars of every type, extreme numbers, arrays, objects. */
    public String value(int depth) {
        int choice = random.nextInt(depth > 2 ? 8 : 11);
        return switch (choice) {
            case 0, 1, 2 -> stringLiteral();
            case 3 -> pick(List.of("0", "-1", "-0", "1e308", "-1e308", "1e-400", "9223372036854775808",
                    "-9223372036854775809", "0.1", "123456789012345678901234567890", "1.5e3"));
            case 4 -> random.nextBoolean() ? "true" : "false";
            case 5 -> "null";
            case 6 -> quote(String.valueOf(random.nextInt(1000) - 500));
            case 7 -> quote(uuid().toString());
            case 8 -> array(depth + 1);
            case 9 -> object(depth + 1);
            default -> chance(0.02) ? hugeArray() : "[]";
        };
    }

    /** A value of a type no JSON mapper turns into {@code declaredType} (an OpenAPI type name, null if unknown). */
    public String incompatibleWith(String declaredType) {
        if ("array".equals(declaredType)) {
            return object(3);
        }
        if ("object".equals(declaredType)) {
            return random.nextBoolean() ? array(3) : "[" + value(3) + "]";
        }
        return random.nextBoolean() ? object(3) : "[[" + value(3) + "]]";
    }

    /**
     * Like {@link #incompatibleWith(String)}, and huge: an array of 100,000 elements or an object holding a huge
     * string, whichever the declared type is not.
     */
    public String hugeIncompatibleWith(String declaredType) {
        boolean array = "object".equals(declaredType) || !"array".equals(declaredType) && random.nextBoolean();
        return array ? hugeArray() : "{\"h\":" + quote("h".repeat(hugeLength)) + "}";
    }

    public String array(int depth) {
        int size = random.nextInt(4);
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; i < size; i++) {
            json.append(i == 0 ? "" : ",").append(value(depth));
        }
        return json.append(']').toString();
    }

    public String object(int depth) {
        int size = random.nextInt(4);
        StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < size; i++) {
            json.append(i == 0 ? "" : ",").append(stringLiteral()).append(':').append(value(depth));
        }
        return json.append('}').toString();
    }

    /** An array of 100,000 short elements (200 to 400 KB: the count is what is huge, not the bytes). */
    public String hugeArray() {
        String element = random.nextBoolean() ? "1" : "\"x\"";
        return "[" + (element + ",").repeat(99_999) + element + "]";
    }

    /** Nesting far deeper than any parser should follow. */
    public String deepNesting() {
        int depth = 2000 + random.nextInt(20_000);
        boolean arrays = random.nextBoolean();
        return arrays ? "[".repeat(depth) + "]".repeat(depth) : "{\"a\":".repeat(depth) + "1" + "}".repeat(depth);
    }

    /** Text that is not JSON, or stops in the middle of it. */
    public String malformed(String validLooking) {
        // Not "valid JSON plus trailing text": the services' Jackson reads the first value and ignores what follows
        // (FAIL_ON_TRAILING_TOKENS is off), so that is not a malformed body to them.
        return random.nextBoolean()
                ? pick(MALFORMED)
                : validLooking.isEmpty() ? "{" : validLooking.substring(0, random.nextInt(validLooking.length()));
    }

    /** Bytes a UTF-8 decoder must refuse or replace: overlong encodings, stray continuations, a cut sequence. */
    public byte[] corruptBytes(byte[] body) {
        byte[][] damage = {{(byte) 0xC0, (byte) 0xAF}, {(byte) 0xE0, (byte) 0x80, (byte) 0xAF}, {(byte) 0xFF},
                {(byte) 0x80}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xF0, (byte) 0x9F}, {0}};
        byte[] inserted = damage[random.nextInt(damage.length)];
        int at = body.length == 0 ? 0 : random.nextInt(body.length);
        byte[] corrupted = new byte[body.length + inserted.length];
        System.arraycopy(body, 0, corrupted, 0, at);
        System.arraycopy(inserted, 0, corrupted, at, inserted.length);
        System.arraycopy(body, at, corrupted, at + inserted.length, body.length - at);
        return corrupted;
    }

    public static String quote(String text) {
        return "\"" + quoteContent(text) + "\"";
    }

    /**
     * {@code text} as the inside of a JSON string literal. Most generated text needs no escape (the huge strings are
     * one letter), so it is scanned once and returned as it is unless an escape is due.
     */
    private static String quoteContent(String text) {
        int first = 0;
        while (first < text.length() && !needsEscape(text.charAt(first))) {
            first++;
        }
        if (first == text.length()) {
            return text;
        }
        StringBuilder json = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!needsEscape(c)) {
                json.append(c);
            } else if (c == '"' || c == '\\') {
                json.append('\\').append(c);
            } else {
                json.append("\\u").append(HEX[c >> 12 & 0xF]).append(HEX[c >> 8 & 0xF]).append(HEX[c >> 4 & 0xF])
                        .append(HEX[c & 0xF]);
            }
        }
        return json.toString();
    }

    private static boolean needsEscape(char c) {
        return c == '"' || c == '\\' || c < 0x20 || Character.isSurrogate(c);
    }

    public static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
