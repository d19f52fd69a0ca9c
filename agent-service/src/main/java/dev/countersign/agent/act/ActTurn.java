package dev.countersign.agent.act;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.countersign.agent.conversation.ConversationHistory;
import dev.countersign.agent.conversation.ConversationKey;
import dev.countersign.agent.conversation.ConversationLedger;
import dev.countersign.agent.conversation.TurnRecorder;
import dev.countersign.agent.evidence.RequestEvidence;
import dev.countersign.agent.ledger.LedgerReader;
import dev.countersign.agent.ledger.TenantFacts;
import dev.countersign.agent.ledger.TenantReads;
import dev.countersign.agent.tools.ToolBox;
import dev.countersign.agent.turn.ModelCalls;
import dev.countersign.agent.turn.TurnConfig;
import dev.countersign.agent.turn.TurnMessages;
import dev.countersign.agent.turn.TurnMetrics;
import dev.countersign.agent.turn.TurnScope;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ChatReply;
import dev.countersign.contracts.api.ChatRequest;
import dev.countersign.contracts.api.ProposalCard;
import dev.countersign.contracts.events.ActionOutcome;
import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.contracts.events.TurnRecorded.Ending;
import dev.countersign.web.ProblemException;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;

/**
 * One act-mode turn: the earlier turns from the ledger, the model, its tool calls answered by the {@link ToolBox},
 * under a budget of wall clock and tool rounds; then the turn is recorded in the conversation ledger. A turn never ends
 * half-staged: each proposal is published whole (or not at all) before the next call, and every proposal the broker
 * acknowledged reaches the person's reply, whatever stops the turn; one it did not acknowledge in time reaches it too,
 * as pending, and is re-sent as the same action until the broker takes it (ProposalDelivery).
 * <p>
 * The wall clock runs from the start of the turn to the last model answer; a tool call that started before it ran out
 * finishes (at most the read or publish timeout, 5 s), and recording the turn adds at most the publish timeout and the
 * ledger wait. So a request lasts at most about wall clock + 5 s + 5 s + 3 s. The model is called through
 * {@link ModelCalls} (its limits are there).
 */
@ApplicationScoped
public class ActTurn {

    static final String BUDGET_REACHED = "Stopped: budget reached (%s).";
    /** How many actions of the conversation the system prompt reports on (the newest). */
    static final int MAX_OUTCOMES = 20;
    static final String NOT_RUN = "Not run: the turn's budget was reached; nothing was done by this call.";
    static final String TOO_MANY_CALLS = "Not run: at most %d tool calls per response; nothing was done by this"
            + " call. Call it again in your next response if it is still needed.";

    private static final Logger LOG = Logger.getLogger(ActTurn.class);

    private final ModelCalls model;
    private final ToolBox tools;
    private final LedgerReader ledger;
    private final ConversationLedger conversations;
    private final ConversationHistory history;
    private final TurnRecorder recorder;
    private final TurnConfig budget;
    private final TurnMetrics metrics;

    public ActTurn(ModelCalls model, ToolBox tools, LedgerReader ledger, ConversationLedger conversations,
            ConversationHistory history, TurnRecorder recorder, TurnConfig budget, TurnMetrics metrics) {
        this.model = model;
        this.tools = tools;
        this.ledger = ledger;
        this.conversations = conversations;
        this.history = history;
        this.recorder = recorder;
        this.budget = budget;
        this.metrics = metrics;
    }

    public ChatReply run(ConversationKey conversation, RequestEvidence evidence, String text, TurnListener listener) {
        return metrics.measure(ChatRequest.ACT, conversation, () -> act(conversation, evidence, text, listener),
                ChatReply::ending);
    }

    private ChatReply act(ConversationKey conversation, RequestEvidence evidence, String text,
            TurnListener listener) {
        Instant deadline = Instant.now().plus(budget.wallClock());
        UUID turnId = UUID.randomUUID();
        TenantFacts facts;
        List<TurnRecorded> earlier;
        try {
            facts = ledger.facts(conversation.tenantId(), conversation.userId()).await().atMost(TenantReads.TIMEOUT);
            earlier = history.earlierTurns(conversation);
        } catch (io.smallrye.mutiny.TimeoutException e) {
            throw new ProblemException(ErrorCode.DATABASE_UNAVAILABLE, ("The ledger did not answer within %s."
                    + " Nothing was staged or changed; try again in a moment.").formatted(TenantReads.TIMEOUT));
        }
        TurnScope scope = new TurnScope(conversation, evidence, turnId, facts.wallets(), facts.categories());

        List<ChatMessage> messages = new ArrayList<>();
        messages.add(SystemMessage.from(SystemPrompt.text(LocalDate.now(), updates(conversation))));
        if (earlier.stream().anyMatch(TurnRecorded::tainted)) {
            scope.readUntrustedText("an earlier turn of this conversation");
        }
        earlier.forEach(t -> messages.addAll(TurnMessages.replay(t)));
        messages.add(UserMessage.from(text));
        List<ToolSpecification> specifications = tools.specifications(scope);

        List<TurnRecorded.ToolRound> rounds = new ArrayList<>();
        String reply = null;
        Ending ending = null;
        while (ending == null) {
            Duration remaining = Duration.between(Instant.now(), deadline);
            AiMessage answer;
            try {
                answer = model.ask(messages, specifications, remaining);
            } catch (TimeoutException e) {
                if (rounds.isEmpty()) {
                    throw new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE, ("The model did not answer within"
                            + " the turn's budget of %s. Nothing was staged or changed; try again in a moment.")
                            .formatted(budget.wallClock()));
                }
                ending = Ending.BUDGET_REACHED;
                reply = BUDGET_REACHED.formatted("the turn's time ran out") + done(rounds, scope);
                break;
            } catch (RuntimeException e) {
                LOG.warnf("The model failed in turn %s of conversation %s: %s", turnId,
                        conversation.conversationId(), e.toString());
                if (rounds.isEmpty()) {
                    // A refusal of the guards around the model (ModelCalls) says why and when to try again.
                    throw e instanceof ProblemException refused
                            ? refused
                            : new ProblemException(
                                    ErrorCode.UPSTREAM_UNAVAILABLE,
                                    "The model did not answer. Nothing was staged or changed; try again in a moment.");
                }
                ending = Ending.MODEL_FAILED;
                reply = "The model stopped before it finished answering." + done(rounds, scope);
                break;
            }
            if (!answer.hasToolExecutionRequests()) {
                ending = Ending.ANSWERED;
                reply = answer.text() == null || answer.text().isBlank()
                        ? "(The model gave no answer.)" + done(rounds, scope)
                        : answer.text();
            } else if (rounds.size() >= budget.maxToolRounds()) {
                ending = Ending.BUDGET_REACHED;
                reply = BUDGET_REACHED.formatted("at most %d tool rounds per turn".formatted(budget.maxToolRounds()))
                        + done(rounds, scope);
            } else {
                messages.add(answer);
                TurnRecorded.ToolRound round = answerCalls(answer, scope, deadline, messages, listener);
                rounds.add(round);
                if (round.calls().stream().anyMatch(call -> NOT_RUN.equals(call.result()))) {
                    ending = Ending.BUDGET_REACHED;
                    reply = BUDGET_REACHED.formatted("the turn's time ran out") + done(rounds, scope);
                }
            }
        }
        TurnRecorded turn = new TurnRecorded(UUID.randomUUID(), TurnRecorded.SCHEMA_VERSION, Instant.now(),
                conversation.tenantId(), conversation.userId(), conversation.conversationId(), turnId,
                ChatRequest.ACT, text, rounds, TurnMessages.storable(reply), scope.proposals().stream()
                        .map(card -> new TurnRecorded.ProposalRef(card.actionId(), card.kind(), card.summary(),
                                card.paramsHash()))
                        .toList(),
                ending, !scope.contextClean());
        if (!scope.contextClean()) {
            LOG.debugf("Turn %s is tainted (%s): its proposals wait for a person", turnId, scope.untrustedSource());
        }
        boolean recorded = metrics.recording(() -> recorder.record(turn, evidence));
        return new ChatReply(conversation.conversationId(), turnId, reply, scope.proposals(), ending.name(),
                recorded);
    }

    private TurnRecorded.ToolRound answerCalls(AiMessage answer, TurnScope scope, Instant deadline,
            List<ChatMessage> messages, TurnListener listener) {
        List<TurnRecorded.ToolCall> calls = new ArrayList<>();
        int answered = 0;
        for (ToolExecutionRequest call : answer.toolExecutionRequests()) {
            int before = scope.proposals().size();
            String result;
            if (answered++ >= budget.maxCallsPerRound()) {
                result = TOO_MANY_CALLS.formatted(budget.maxCallsPerRound());
            } else {
                result = Instant.now().isBefore(deadline) ? tools.answer(call, scope) : NOT_RUN;
            }
            messages.add(ToolExecutionResultMessage.from(call, result));
            calls.add(new TurnRecorded.ToolCall(TurnMessages.storable(call.id()), TurnMessages.storable(call.name()),
                    TurnMessages.storable(call.arguments()), result));
            listener.toolAnswered(call.name());
            scope.proposals().subList(before, scope.proposals().size()).forEach(listener::proposed);
        }
        return new TurnRecorded.ToolRound(calls);
    }

    /** What the turn did, for a reply the model did not write. */
    private static String done(List<TurnRecorded.ToolRound> rounds, TurnScope scope) {
        List<String> ran = rounds.stream().flatMap(round -> round.calls().stream())
                .filter(call -> !NOT_RUN.equals(call.result())).map(TurnRecorded.ToolCall::tool).toList();
        List<ProposalCard> staged = scope.proposals();
        String tools = ran.isEmpty() ? " No tool ran." : " Tools that ran: " + String.join(", ", ran) + ".";
        String proposals = staged.isEmpty()
                ? " Nothing was staged or changed."
                : " Staged for your confirmation (not applied): " + staged.stream().map(ProposalCard::summary)
                        .collect(Collectors.joining("; ")) + ". Nothing else was changed.";
        return tools + proposals;
    }

    private String updates(ConversationKey conversation) {
        List<ActionOutcome> recent = conversations.outcomes(conversation, MAX_OUTCOMES);
        if (recent.isEmpty()) {
            return "(none)";
        }
        return recent.stream().map(o -> "- " + o.describe()).collect(Collectors.joining("\n"));
    }
}
