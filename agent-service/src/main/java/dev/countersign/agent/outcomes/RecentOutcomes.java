package dev.countersign.agent.outcomes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.chat.ConversationKey;
import dev.countersign.agent.chat.RecentConversations;
import dev.countersign.contracts.events.ActionOutcome;

/**
 * The latest outcome of each action, per conversation (of one user of one tenant), for the next turn's context.
 * <p>
 * Limits, on purpose for now: held in this process's memory, bounded (the newest {@value RecentConversations#MAX}
 * conversations, {@value #MAX_PER_CONVERSATION} actions each), lost on restart, and only outcomes published after the
 * instance started are known. The conversation ledger (a later issue) replaces it with a durable read.
 */
@ApplicationScoped
public class RecentOutcomes {

    static final int MAX_PER_CONVERSATION = 20;

    private final Map<ConversationKey, LinkedHashMap<UUID, ActionOutcome>> byConversation = new RecentConversations<>();

    public synchronized void record(ActionOutcome outcome) {
        if (outcome.conversationId() == null || outcome.userId() == null) {
            return;
        }
        var actions = byConversation.computeIfAbsent(
                new ConversationKey(outcome.tenantId(), outcome.userId(), outcome.conversationId()),
                k -> new LinkedHashMap<>());
        ActionOutcome previous = actions.get(outcome.actionId());
        // Outcomes of one action can arrive out of order across executor instances: a settled action (executed,
        // failed, rejected) never goes back to waiting because a late "staged" arrives. Timestamps are not compared:
        // they come from different clocks.
        if (previous != null && previous.settlesTheProposal() && !outcome.settlesTheProposal()) {
            return;
        }
        actions.remove(outcome.actionId());
        actions.put(outcome.actionId(), outcome);
        while (actions.size() > MAX_PER_CONVERSATION) {
            actions.remove(actions.keySet().iterator().next());
        }
    }

    public synchronized List<ActionOutcome> of(ConversationKey conversation) {
        var actions = byConversation.get(conversation);
        return actions == null ? List.of() : new ArrayList<>(actions.values());
    }
}
