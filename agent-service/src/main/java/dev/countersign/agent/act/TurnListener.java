package dev.countersign.agent.act;

import dev.countersign.contracts.api.ProposalCard;

/** Progress of a turn as it happens, for a streamed reply. Called on the turn's thread. */
public interface TurnListener {

    TurnListener NONE = new TurnListener() {
    };

    /** A tool call was answered (whether it succeeded or not). */
    default void toolAnswered(String tool) {
    }

    default void proposed(ProposalCard card) {
    }
}
