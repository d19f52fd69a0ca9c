package dev.countersign.executor.outbox;

import dev.countersign.contracts.Identifiers;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.events.ActionOutcome;
import dev.countersign.contracts.json.Json;

/**
 * An outcome event as the database appends it ({@code append_outcome}, R__execute_action.sql): its JSON, its type's
 * name, its topic, and whether it also goes to its conversation's ledger. Made here for both ways an outcome reaches
 * the outbox: {@link OutboxWriter#append} and a database kind's execution ({@code execute_action}).
 *
 * @param toLedger
 *            only with a printable user and conversation, and never with a NUL, which PostgreSQL stores in no text or
 *            jsonb (such an outcome, of a proposal rejected for it, reaches the topic only, so its transaction still
 *            commits)
 */
public record AppendedOutcome(String payload, String type, String topic, boolean toLedger) {

    public static AppendedOutcome of(ActionOutcome event) {
        String payload = Json.write(event);
        return new AppendedOutcome(payload, event.getClass().getSimpleName(), Topics.ACTIONS_OUTCOMES,
                Identifiers.isPrintableId(event.userId()) && Identifiers.isPrintableId(event.conversationId())
                        && !payload.contains("\\u0000"));
    }
}
