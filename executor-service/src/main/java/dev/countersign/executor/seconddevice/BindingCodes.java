package dev.countersign.executor.seconddevice;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;

/**
 * The short code both screens show for one action, so that a person approving on their second device can tell it is the
 * action in front of them: {@code K7F2-Q9PX}, eight characters of Crockford's base32 (no I, L, O or U) of the SHA-256
 * of the action's id. Sent to the identity provider as the CIBA {@code binding_message}, which Keycloak accepts only as
 * {@code ^[a-zA-Z0-9-._+/!?#]{1,50}$}.
 * <p>
 * A code is no secret and proves nothing: it lets a person compare two screens. 40 bits make two of one person's
 * waiting actions with the same code unlikely (about one in 10^12 for two), and nothing depends on codes differing: the
 * executor binds each request to its action by its own records, never by the code.
 */
public final class BindingCodes {

    private static final char[] ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();
    private static final int LENGTH = 8;

    private BindingCodes() {
    }

    /** The code of {@code actionId}. */
    public static String of(UUID actionId) {
        byte[] digest = sha256(actionId.toString());
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
