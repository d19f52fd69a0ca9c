package dev.countersign.contracts.events;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * One finished chat turn, as agent-service publishes it to {@code countersign.conversation.events} (key: conversation
 * id) and executor-service appends it to the conversation ledger, from which any agent replica reads the history back.
 * It never carries a confirm token: a proposal appears by id, kind, summary and parameter hash only.
 *
 * @param mode
 *            {@code act} (tools) or {@code plan}
 * @param rounds
 *            the tool rounds in order; every call has its result (a call the budget stopped has a "not run" result)
 * @param ending
 *            how the turn ended
 * @param untrustedText
 *            whether the model's context in this turn held free text its user did not write, read in this turn or
 *            carried in from an earlier turn it replayed (the taint mark). A later turn that replays this one is
 *            tainted too. Null (turns recorded before the mark existed) counts as tainted.
 */
public record TurnRecorded(
        UUID eventId,
        int schemaVersion,
        Instant occurredAt,
        String tenantId,
        String userId,
        String conversationId,
        UUID turnId,
        String mode,
        String userText,
        List<ToolRound> rounds,
        String reply,
        List<ProposalRef> proposals,
        Ending ending,
        Boolean untrustedText) {

    public static final int SCHEMA_VERSION = 1;
    public static final String TYPE = "TurnRecorded";

    public TurnRecorded {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(conversationId, "conversationId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(userText, "userText");
        Objects.requireNonNull(ending, "ending");
        rounds = rounds == null ? List.of() : List.copyOf(rounds);
        proposals = proposals == null ? List.of() : List.copyOf(proposals);
        reply = reply == null ? "" : reply;
    }

    /** Whether replaying this turn puts text its user did not write into the model's context. */
    public boolean tainted() {
        return !Boolean.FALSE.equals(untrustedText);
    }

    public enum Ending {
        /** The model answered in words. */
        ANSWERED,
        /** The wall clock or the tool-round limit stopped the turn. */
        BUDGET_REACHED,
        /** The model failed after tools had run (a turn in which nothing ran is not recorded). */
        MODEL_FAILED
    }

    /** The tool calls the model made in one response, each with the result it was given. */
    public record ToolRound(List<ToolCall> calls) {

        public ToolRound {
            calls = List.copyOf(calls);
        }
    }

    /**
     * @param arguments
     *            the JSON text the model sent, as sent
     */
    public record ToolCall(String callId, String tool, String arguments, String result) {
    }

    public record ProposalRef(UUID actionId, String kind, String summary, String paramsHash) {
    }
}
