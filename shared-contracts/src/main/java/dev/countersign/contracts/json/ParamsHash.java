package dev.countersign.contracts.json;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import com.fasterxml.jackson.databind.JsonNode;

/** SHA-256 over canonical JSON, lower-case hex (confirm tokens are hashed by {@link ConfirmTokens#hash}). */
public final class ParamsHash {

    private ParamsHash() {
    }

    /** The hash of a parameter object, as proposed and as recomputed before execution. */
    public static String of(JsonNode params) {
        return sha256Hex(CanonicalJson.toBytes(params));
    }

    /** Whether {@code hash} has the form {@link #of} produces: 64 lower-case hex digits. */
    public static boolean isWellFormed(String hash) {
        return hash != null && hash.length() == 64 && hash.chars().allMatch(c -> (c >= '0' && c <= '9')
                || (c >= 'a' && c <= 'f'));
    }

    public static String sha256Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }
}
