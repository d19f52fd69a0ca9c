package dev.countersign.contracts.api;

import java.util.List;
import java.util.UUID;

/** The answer to one chat turn: the model's words and the proposals it staged for the person to decide. */
public record ChatReply(String conversationId, UUID turnId, String reply, List<ProposalCard> proposals) {
}
