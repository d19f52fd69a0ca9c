package dev.countersign.contracts.json;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import com.fasterxml.jackson.databind.JsonNode;

/** SHA-256 over canonical JSON, and over confirm tokens; lower-case hex. */
public final class ParamsHash {

    private ParamsHash() {
    }

    /** The hash of a parameter object, as proposed and as recomputed before execution. */
    public static String of(JsonNode params) {
        return sha256Hex(CanonicalJson.toBytes(params));
    }

    /** The only form in which a confirm token is ever stored or sent over Kafka. */
    public static String ofToken(String rawToken) {
        return sha256Hex(rawToken.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    public static String sha256Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }
}
