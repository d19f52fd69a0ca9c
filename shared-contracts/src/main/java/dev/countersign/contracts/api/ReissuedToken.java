package dev.countersign.contracts.api;

import java.time.Instant;
import java.util.UUID;

/** {@code POST /api/actions/{id}/reissue-token}: a fresh one-time token; the previous one no longer works. */
public record ReissuedToken(UUID actionId, String confirmToken, Instant expiresAt) {

    @Override
    public String toString() {
        return "ReissuedToken[actionId=%s, confirmToken=<redacted>]".formatted(actionId);
    }
}
