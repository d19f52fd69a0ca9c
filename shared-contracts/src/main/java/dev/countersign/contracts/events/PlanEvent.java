package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * What a plan-mode turn delivered, recorded in the conversation ledger next to its {@link TurnRecorded} (same topic,
 * same key, published before it): a drafted statement, an explicit refusal, or neither (a shortfall). Exactly one per
 * plan turn. The {@code type} member names the event; it is also the ledger row's {@code type}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = PlanStatementDrafted.class, name = PlanStatementDrafted.TYPE),
        @JsonSubTypes.Type(value = PlanRefused.class, name = PlanRefused.TYPE),
        @JsonSubTypes.Type(value = PlanFellShort.class, name = PlanFellShort.TYPE)
})
public sealed interface PlanEvent permits PlanStatementDrafted, PlanRefused, PlanFellShort {

    int SCHEMA_VERSION = 1;

    /** Every value of {@code type} a plan event can have. */
    List<String> TYPES = List.of(PlanStatementDrafted.TYPE, PlanRefused.TYPE, PlanFellShort.TYPE);

    UUID eventId();

    int schemaVersion();

    Instant occurredAt();

    String tenantId();

    String userId();

    String conversationId();

    /** The plan turn this deliverable belongs to. */
    UUID turnId();

    /** Whether the run passes the verdict: a statement or an explicit refusal does, a shortfall does not. */
    default boolean passes() {
        return !(this instanceof PlanFellShort);
    }
}
