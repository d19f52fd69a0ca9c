package dev.countersign.agent.conversation;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.contracts.json.Json;

/**
 * The earlier turns a new turn shows the model: the newest of the conversation, oldest first, at most
 * {@code history-turns} of them and no more than {@code history-chars} characters of recorded turns (the newest turn
 * always counts, however long).
 */
@ApplicationScoped
public class ConversationHistory {

    private final ConversationLedger ledger;
    private final ConversationsConfig config;

    public ConversationHistory(ConversationLedger ledger, ConversationsConfig config) {
        this.ledger = ledger;
        this.config = config;
    }

    public List<TurnRecorded> earlierTurns(ConversationKey conversation) {
        List<TurnRecorded> all = ledger.turns(conversation, config.historyTurns());
        int chars = 0;
        int first = all.size();
        while (first > 0) {
            chars += Json.write(all.get(first - 1)).length();
            if (chars > config.historyChars() && first < all.size()) {
                break;
            }
            first--;
        }
        return all.subList(first, all.size());
    }
}
