package dev.countersign.contracts.api;

import java.util.List;
import java.util.UUID;

/**
 * The answer to one chat turn: the model's words and the proposals it staged for the person to decide.
 *
 * @param ending
 *            {@code ANSWERED}, {@code BUDGET_REACHED} or {@code MODEL_FAILED}
 * @param recorded
 *            whether the turn reached the conversation ledger before this reply (false: a later turn, on any replica,
 *            may not see it yet, or at all if the broker lost it)
 */
public record ChatReply(String conversationId, UUID turnId, String reply, List<ProposalCard> proposals,
        String ending, boolean recorded) {
}
