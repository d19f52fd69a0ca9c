package dev.countersign.contracts.api;

import java.time.Instant;

/**
 * A reader grant's secret, which a session of the agent's roles names
 * ({@link dev.countersign.contracts.TenantIsolation}) to read one person's view of one tenant until {@code expiresAt}.
 * The database keeps only its hash; {@link #toString()} hides it.
 */
public record ReaderGrant(String secret, Instant expiresAt) {

    @Override
    public String toString() {
        return "ReaderGrant[secret=<redacted>, expiresAt=%s]".formatted(expiresAt);
    }
}
