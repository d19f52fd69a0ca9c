package dev.countersign.agent.outcomes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import dev.countersign.agent.chat.ConversationKey;
import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.Tier;
import dev.countersign.contracts.events.ActionExecuted;
import dev.countersign.contracts.events.ActionStaged;

class RecentOutcomesTest {

    private final RecentOutcomes recent = new RecentOutcomes();
    private final ConversationKey conversation = new ConversationKey("acme", "alice", "c-1");
    private final UUID actionId = UUID.randomUUID();

    private ActionStaged staged(Instant at) {
        return new ActionStaged(UUID.randomUUID(), 1, at, actionId, "acme", "alice", "c-1", "k", Tier.LOW,
                ActionStatus.PROPOSED, "s", "h", at.plusSeconds(900));
    }

    private ActionExecuted executed(Instant at) {
        return new ActionExecuted(UUID.randomUUID(), 1, at, actionId, "acme", "alice", "c-1", "k", "s", "alice",
                JsonNodeFactory.instance.objectNode());
    }

    @Test
    void aLateStagedNeverHidesThatTheActionWasExecuted() {
        Instant now = Instant.now();
        recent.record(executed(now.minusSeconds(5)));
        recent.record(staged(now));

        assertThat(recent.of(conversation)).singleElement().isInstanceOf(ActionExecuted.class);
    }

    @Test
    void anExecutionReplacesTheStagedState() {
        Instant now = Instant.now();
        recent.record(staged(now));
        recent.record(executed(now.minusSeconds(5)));

        assertThat(recent.of(conversation)).singleElement().isInstanceOf(ActionExecuted.class);
    }

    @Test
    void keepsOnlyTheNewestActionsOfAConversation() {
        for (int i = 0; i < RecentOutcomes.MAX_PER_CONVERSATION + 5; i++) {
            recent.record(new ActionStaged(UUID.randomUUID(), 1, Instant.now(), UUID.randomUUID(), "acme", "alice",
                    "c-1", "k", Tier.LOW, ActionStatus.PROPOSED, "s", "h", Instant.now()));
        }

        assertThat(recent.of(conversation)).hasSize(RecentOutcomes.MAX_PER_CONVERSATION);
        assertThat(recent.of(new ConversationKey("acme", "bob", "c-1"))).isEmpty();
    }
}
