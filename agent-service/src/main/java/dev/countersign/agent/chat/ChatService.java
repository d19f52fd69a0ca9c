package dev.countersign.agent.chat;

import java.time.LocalDate;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.countersign.agent.outcomes.RecentOutcomes;
import dev.countersign.agent.tools.TurnContext;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ChatReply;
import dev.countersign.contracts.api.ProposalCard;
import dev.countersign.contracts.events.ActionOutcome;
import dev.countersign.web.ProblemException;

/** One chat turn: context in, the model and its tools, the reply and the proposal cards out. */
@ApplicationScoped
public class ChatService {

    private static final Logger LOG = Logger.getLogger(ChatService.class);

    private final LedgerAssistant assistant;
    private final TurnContext turn;
    private final RecentOutcomes outcomes;

    public ChatService(LedgerAssistant assistant, TurnContext turn, RecentOutcomes outcomes) {
        this.assistant = assistant;
        this.turn = turn;
        this.outcomes = outcomes;
    }

    public ChatReply turn(String tenantId, String userId, String conversationId, String text) {
        UUID turnId = UUID.randomUUID();
        turn.begin(tenantId, userId, conversationId, turnId);
        String reply;
        try {
            ConversationKey conversation = new ConversationKey(tenantId, userId, conversationId);
            reply = assistant.chat(conversation, LocalDate.now().toString(), updates(conversation), text);
        } catch (ProblemException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.warnf("The model failed in turn %s of conversation %s: %s", turnId, conversationId, e.toString());
            List<ProposalCard> staged = turn.proposals();
            if (staged.isEmpty()) {
                throw new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE,
                        "The model did not answer. Nothing was staged or changed; try again in a moment.");
            }
            // Proposals already published must reach the person, or their tokens would be lost.
            reply = "The model stopped before it finished answering. The proposals below were staged and wait for"
                    + " your confirmation; nothing else was done.";
        }
        return new ChatReply(conversationId, turnId, reply, turn.proposals());
    }

    private String updates(ConversationKey conversation) {
        List<ActionOutcome> recent = outcomes.of(conversation);
        if (recent.isEmpty()) {
            return "(none)";
        }
        return recent.stream().map(o -> "- " + o.describe()).collect(Collectors.joining("\n"));
    }
}
