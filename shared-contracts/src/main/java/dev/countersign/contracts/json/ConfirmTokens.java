package dev.countersign.contracts.json;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;

/** One-time confirm tokens: 128 bits from a CSPRNG, base64url. Stored and sent only as {@link #hash(String)}. */
public final class ConfirmTokens {

    /** The longest token a request may carry; ours are 22 characters. */
    public static final int MAX_LENGTH = 256;

    private static final SecureRandom RANDOM = new SecureRandom();

    private ConfirmTokens() {
    }

    public static String newToken() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** A token a request may carry at all (it may still be the wrong one). */
    public static boolean isWellFormed(String rawToken) {
        return rawToken != null && !rawToken.isBlank() && rawToken.length() <= MAX_LENGTH;
    }

    /** The only form in which a confirm token is ever stored or sent over Kafka: SHA-256, lower-case hex. */
    public static String hash(String rawToken) {
        return ParamsHash.sha256Hex(rawToken.getBytes(StandardCharsets.UTF_8));
    }
}
