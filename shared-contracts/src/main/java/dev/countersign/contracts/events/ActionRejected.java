package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.UUID;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.catalogue.ActionCatalogue;

/** The executor refused to stage a proposal; nothing was stored for it and nothing will run. */
public record ActionRejected(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        UUID actionId,
        String tenantId,
        String userId,
        String conversationId,
        String kind,
        String code,
        String reason) implements ActionOutcome {

    public static final int SCHEMA_VERSION = 1;

    @Override
    public String describe() {
        // The kind of a rejected proposal may be anything the proposer sent: name it only if the catalogue knows it.
        String knownKind = ActionCatalogue.find(kind).map(d -> d.kind()).orElse("an unknown kind");
        String knownCode = java.util.Arrays.stream(ErrorCode.values()).map(ErrorCode::code)
                .filter(c -> c.equals(code)).findFirst().orElse("an unknown reason");
        return "Action %s (%s) was rejected by the executor (%s); nothing was staged or changed.".formatted(actionId,
                knownKind, knownCode);
    }
}
