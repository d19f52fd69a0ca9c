package dev.countersign.executor.evidence;

import java.time.Instant;
import java.util.Set;

/** What the evidence of one record came to. Never holds the token. */
public sealed interface Evidence {

    /**
     * The record's tenant and requester are those of a recently signed-in person or a service principal, whose token
     * expires at {@code expiresAt}, carries {@code groups} (read for approvers only; empty for proposals) and is named
     * {@code tokenId} (its {@code jti}; read for approvers only, null if absent). {@code throughMcp}: the token is of
     * the MCP evidence audience, an MCP client's token exchanged at the identity provider (docs/mcp.md), so the request
     * came from an agent whose context Countersign cannot see.
     */
    record Verified(String tenantId, String requester, boolean service, Instant expiresAt, Set<String> groups,
            String tokenId, boolean throughMcp)
            implements
                Evidence {
    }

    /**
     * The record is not to be trusted for its tenant and user.
     *
     * @param reason
     *            a stable code (a metric label, the dead-letter reason): never the token or its claims
     */
    record Rejected(String reason) implements Evidence {
    }

    static Rejected rejected(String reason) {
        return new Rejected(reason);
    }
}
