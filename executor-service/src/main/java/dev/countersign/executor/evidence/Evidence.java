package dev.countersign.executor.evidence;

import java.time.Instant;
import java.util.Set;

/** What the evidence of one record came to. Never holds the token. */
public sealed interface Evidence {

    /**
     * The record's tenant and requester are those of a recently signed-in person or a service principal, whose token
     * expires at {@code expiresAt}, carries {@code groups} (read for approvers only; empty for proposals) and is named
     * {@code tokenId} (its {@code jti}; read for approvers only, null if absent). {@code mcpClient}: for a token of the
     * MCP evidence audience (an MCP client's token exchanged at the identity provider, docs/mcp.md), the client the
     * person signed in through, as the identity provider named it ({@code act.client_id}); null otherwise.
     */
    record Verified(String tenantId, String requester, boolean service, Instant expiresAt, Set<String> groups,
            String tokenId, String mcpClient)
            implements
                Evidence {

        /** The request came through an MCP client, from an agent whose context Countersign cannot see. */
        public boolean throughMcp() {
            return mcpClient != null;
        }
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
