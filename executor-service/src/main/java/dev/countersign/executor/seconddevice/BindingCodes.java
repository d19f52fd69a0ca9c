package dev.countersign.executor.seconddevice;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;

/**
 * The short code both screens show for one second-device request, so that the person asked can tell the prompt on their
 * device is the action in front of them: {@code K7F2-Q9PX}, eight characters of Crockford's base32 (no I, L, O or U) of
 * the SHA-256 of the request's id (its notification's). One per person and action: each person asked about an action
 * gets a code of their own, which the decision page shows to them only, so a prompt that reached someone else matches
 * nothing the executor shows that person. Sent to the identity provider as the CIBA {@code binding_message}, which
 * Keycloak accepts only as {@code ^[a-zA-Z0-9-._+/!?#]{1,50}$}.
 * <p>
 * A code is no secret: it lets a person compare two screens, and lets the approval device ask the executor whether a
 * prompt is one it started for the person signed in there. 40 bits make two of one person's pending requests with the
 * same code unlikely (about one in 10^12 for two). The executor binds each request to its action by its own records,
 * never by the code.
 */
public final class BindingCodes {

    private static final char[] ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();
    private static final int LENGTH = 8;

    private BindingCodes() {
    }

    /** The code of the request {@code requestId}. */
    public static String of(UUID requestId) {
        byte[] digest = sha256(requestId.toString());
        long bits = 0;
        for (int i = 0; i < 5; i++) {
            bits = bits << 8 | digest[i] & 0xff;
        }
        StringBuilder code = new StringBuilder(LENGTH + 1);
        for (int i = LENGTH - 1; i >= 0; i--) {
            code.append(ALPHABET[(int) (bits >>> (5 * i)) & 31]);
            if (i == LENGTH / 2) {
                code.append('-');
            }
        }
        return code.toString();
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
