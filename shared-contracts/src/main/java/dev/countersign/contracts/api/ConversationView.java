package dev.countersign.contracts.api;

import java.util.List;

import dev.countersign.contracts.events.TurnRecorded;

/**
 * {@code GET /api/conversations/{id}}: the conversation's turns as the ledger holds them, oldest first (at most the
 * newest {@link #MAX_TURNS}). Proposals appear without their confirm tokens.
 */
public record ConversationView(String conversationId, List<TurnRecorded> turns) {

    public static final int MAX_TURNS = 200;
}
