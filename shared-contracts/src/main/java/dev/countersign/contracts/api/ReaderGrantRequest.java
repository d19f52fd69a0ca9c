package dev.countersign.contracts.api;

/**
 * agent-service asks executor-service for a reader grant: the database may show the agent's roles {@code tenantId}, and
 * of its per-person rows those of {@code userId}, for as long as {@code evidence} (that person's own agent-audience
 * access token) lives. The token is never logged; {@link #toString()} hides it.
 */
public record ReaderGrantRequest(String tenantId, String userId, String evidence) {

    @Override
    public String toString() {
        return "ReaderGrantRequest[tenantId=%s, userId=%s, evidence=<redacted>]".formatted(tenantId, userId);
    }
}
