package dev.countersign.contracts.api;

import java.time.Instant;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A staged write as the person sees it, with the one-time confirm token. This is the only place the raw token ever
 * appears: the model, the logs, Kafka and the database see its hash at most.
 *
 * @param confirmPath
 *            where to POST {@code {"token": confirmToken}} on executor-service
 */
public record ProposalCard(
        UUID actionId,
        String kind,
        String summary,
        JsonNode params,
        String paramsHash,
        String confirmToken,
        Instant proposedAt,
        String confirmPath) {

    @Override
    public String toString() {
        return "ProposalCard[actionId=%s, kind=%s, confirmToken=<redacted>]".formatted(actionId, kind);
    }
}
