package dev.countersign.contracts.api;

import java.util.UUID;

import dev.countersign.contracts.events.PlanEvent;

/**
 * The answer to a plan-mode turn ({@code "mode": "plan"}): the model's words and what they delivered.
 *
 * @param verdict
 *            {@code statement}, {@code refusal} or {@code shortfall}; only the first two pass
 * @param deliverable
 *            the event recorded in the conversation ledger for this turn ({@code PlanStatementDrafted},
 *            {@code PlanRefused} or {@code PlanFellShort})
 * @param grounding
 *            what the server read of the schema before asking the model
 * @param recorded
 *            whether the turn and its deliverable reached the conversation ledger before this reply
 */
public record PlanReply(String conversationId, UUID turnId, String mode, String reply, String verdict,
        PlanEvent deliverable, Grounding grounding, boolean recorded) {

    /**
     * @param tables
     *            how many tenant-visible relations the inventory lists
     * @param sizeUnknown
     *            how many of them PostgreSQL has no row estimate for (never analysed)
     */
    public record Grounding(int tables, int sizeUnknown) {
    }
}
