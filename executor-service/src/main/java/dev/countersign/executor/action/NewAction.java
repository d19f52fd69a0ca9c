package dev.countersign.executor.action;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Tier;

/**
 * A validated proposal, ready to be stored as {@code proposed}; the database stamps its times.
 *
 * @param target
 *            the existing row it changes, as it was at staging; null for kinds that change none
 * @param traceParent
 *            the W3C {@code traceparent} of the proposal's trace (the chat turn's), or null when it came untraced
 * @param contextClean
 *            the agent's mark that the proposing turn read no text its user did not write (the agent's claim)
 * @param targetOwner
 *            the person whose row it writes (a wallet's owner, a plan's person), or null for a row nobody owns
 * @param mcpClient
 *            the MCP client the person proposed through, as the identity provider named it; null for the built-in chat
 *            and integrations
 * @param ttl
 *            how long it may wait for a decision, from when the database stores it
 * @param supersedes
 *            the action a person's edit replaces with this one (edit before approve), or null
 * @param priorRequesters
 *            for an edit, everyone who asked for the actions it replaces; empty otherwise
 */
public record NewAction(
        UUID id,
        String tenantId,
        String requestedBy,
        String conversationId,
        UUID turnId,
        String kind,
        Tier tier,
        JsonNode params,
        String paramsHash,
        String tokenHash,
        String summary,
        TargetSnapshot target,
        String traceParent,
        boolean contextClean,
        String targetOwner,
        String mcpClient,
        Duration ttl,
        UUID supersedes,
        List<String> priorRequesters) {
}
