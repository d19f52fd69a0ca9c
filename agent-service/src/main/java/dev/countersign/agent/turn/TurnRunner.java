package dev.countersign.agent.turn;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.countersign.agent.chat.ConversationKey;
import dev.countersign.agent.chat.RequestEvidence;
import dev.countersign.agent.conversation.ConversationLedger;
import dev.countersign.agent.conversation.ConversationsConfig;
import dev.countersign.agent.conversation.TurnRecorder;
import dev.countersign.agent.ledger.LedgerReader;
import dev.countersign.agent.ledger.TenantFacts;
import dev.countersign.agent.ledger.TenantReads;
import dev.countersign.agent.plan.PlanDeliverable;
import dev.countersign.agent.plan.PlanPrompt;
import dev.countersign.agent.plan.SchemaGrounding;
import dev.countersign.agent.plan.SchemaInventory;
import dev.countersign.agent.plan.StatementAnalysis;
import dev.countersign.agent.tools.ToolBox;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ChatReply;
import dev.countersign.contracts.api.PlanReply;
import dev.countersign.contracts.api.ProposalCard;
import dev.countersign.contracts.events.ActionOutcome;
import dev.countersign.contracts.events.PlanEvent;
import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.contracts.events.TurnRecorded.Ending;
import dev.countersign.contracts.json.Json;
import dev.countersign.web.ProblemException;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import io.opentelemetry.context.Context;

/**
 * One act-mode turn: the earlier turns from the ledger, the model, its tool calls answered by the {@link ToolBox},
 * under a budget of wall clock and tool rounds; then the turn is recorded in the conversation ledger. A turn never ends
 * half-staged: each proposal is published whole (or not at all) before the next call, and every proposal the broker
 * acknowledged reaches the person's reply, whatever stops the turn; one it did not acknowledge in time reaches it too,
 * as pending, and is re-sent as the same action until the broker takes it (ProposalDelivery).
 * <p>
 * The wall clock runs from the start of the turn to the last model answer; a tool call that started before it ran out
 * finishes (at most the read or publish timeout, 5 s), and recording the turn adds at most the publish timeout and the
 * ledger wait. So a request lasts at most about wall clock + 5 s + 5 s + 3 s. At most {@value #MAX_CONCURRENT_CALLS}
 * model calls run at once per instance; an abandoned call holds its thread until the client's own timeout.
 */
@ApplicationScoped
public class TurnRunner {

    static final String BUDGET_REACHED = "Stopped: budget reached (%s).";
    /** How many actions of the conversation the system prompt reports on (the newest). */
    static final int MAX_OUTCOMES = 20;
    static final String NOT_RUN = "Not run: the turn's budget was reached; nothing was done by this call.";
    static final String TOO_MANY_CALLS = "Not run: at most %d tool calls per response; nothing was done by this"
            + " call. Call it again in your next response if it is still needed.";
    static final int MAX_CONCURRENT_CALLS = 64;

    private static final Logger LOG = Logger.getLogger(TurnRunner.class);

    private final ChatModel model;
    private final ToolBox tools;
    private final LedgerReader ledger;
    private final ConversationLedger conversations;
    private final TurnRecorder recorder;
    private final TurnConfig budget;
    private final ConversationsConfig history;
    private final SchemaGrounding grounding;
    private final StatementAnalysis analysis;
    private final TurnMetrics metrics;
    private final ExecutorService modelCalls = new ThreadPoolExecutor(0, MAX_CONCURRENT_CALLS, 60, TimeUnit.SECONDS,
            new SynchronousQueue<>(), runnable -> {
                Thread thread = new Thread(runnable, "model-call");
                thread.setDaemon(true);
                return thread;
            });

    public TurnRunner(ChatModel model, ToolBox tools, LedgerReader ledger, ConversationLedger conversations,
            TurnRecorder recorder, TurnConfig budget, ConversationsConfig history, SchemaGrounding grounding,
            StatementAnalysis analysis, TurnMetrics metrics) {
        this.model = model;
        this.tools = tools;
        this.ledger = ledger;
        this.conversations = conversations;
        this.recorder = recorder;
        this.budget = budget;
        this.history = history;
        this.grounding = grounding;
        this.analysis = analysis;
        this.metrics = metrics;
        if (budget.maxToolRounds() < 1 || budget.maxCallsPerRound() < 1) {
            throw new IllegalStateException(
                    "countersign.turn.max-tool-rounds and max-calls-per-round must be at least 1");
        }
    }

    @PreDestroy
    void stop() {
        modelCalls.shutdownNow();
    }

    public ChatReply run(ConversationKey conversation, RequestEvidence evidence, String text, TurnListener listener) {
        return measured(dev.countersign.contracts.api.ChatRequest.ACT, conversation,
                () -> act(conversation, evidence, text, listener), ChatReply::ending);
    }

    /**
     * Runs one turn of {@code mode} with the conversation's ids in the log fields, and counts it in the turn metrics
     * with the ending it reports ({@link TurnMetrics#ERROR} when it throws).
     */
    private <R> R measured(String mode, ConversationKey conversation, Supplier<R> turn, Function<R, String> ending) {
        long started = System.nanoTime();
        TurnLogFields.put(conversation);
        try {
            R reply = turn.get();
            metrics.turn(mode, ending.apply(reply), started);
            return reply;
        } catch (RuntimeException e) {
            metrics.turn(mode, TurnMetrics.ERROR, started);
            throw e;
        } finally {
            TurnLogFields.remove();
        }
    }

    private ChatReply act(ConversationKey conversation, RequestEvidence evidence, String text,
            TurnListener listener) {
        Instant deadline = Instant.now().plus(budget.wallClock());
        UUID turnId = UUID.randomUUID();
        TenantFacts facts = ledger.facts(conversation.tenantId(), conversation.userId())
                .await().atMost(TenantReads.TIMEOUT);
        TurnScope scope = new TurnScope(conversation, evidence, turnId, facts.wallets(), facts.categories());

        List<ChatMessage> messages = new ArrayList<>();
        messages.add(SystemMessage.from(SystemPrompt.text(LocalDate.now(), updates(conversation))));
        List<TurnRecorded> earlier = earlierTurns(conversation);
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
                answer = ask(messages, specifications, remaining);
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
                    throw new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE,
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
                dev.countersign.contracts.api.ChatRequest.ACT, text, rounds, storable(reply), scope.proposals().stream()
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

    /**
     * One plan-mode turn: the server reads the schema inventory from the catalog (every time: nothing is cached, so any
     * replica after any restart grounds the same way), the model answers once with no tools, and the
     * {@link PlanDeliverable} reader decides what it delivered. The deliverable and the turn are recorded in the
     * conversation ledger. Nothing the model wrote is run.
     */
    public PlanReply plan(ConversationKey conversation, RequestEvidence evidence, String text) {
        return measured(dev.countersign.contracts.api.ChatRequest.PLAN, conversation,
                () -> planTurn(conversation, evidence, text), reply -> Ending.ANSWERED.name());
    }

    private PlanReply planTurn(ConversationKey conversation, RequestEvidence evidence, String text) {
        Instant deadline = Instant.now().plus(budget.wallClock());
        UUID turnId = UUID.randomUUID();
        SchemaInventory inventory = grounding.inventory(conversation.tenantId());
        List<ChatMessage> messages = new ArrayList<>();
        messages.add(SystemMessage.from(PlanPrompt.text(LocalDate.now(), inventory)));
        List<TurnRecorded> earlier = earlierTurns(conversation);
        earlier.forEach(t -> messages.addAll(TurnMessages.replay(t)));
        messages.add(UserMessage.from(text));
        AiMessage answer;
        try {
            answer = ask(messages, List.of(), Duration.between(Instant.now(), deadline));
        } catch (TimeoutException e) {
            throw new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE, ("The model did not answer within the turn's"
                    + " budget of %s. Nothing was run; try again in a moment.").formatted(budget.wallClock()));
        } catch (RuntimeException e) {
            LOG.warnf("The model failed in plan turn %s of conversation %s: %s", turnId,
                    conversation.conversationId(), e.toString());
            throw new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE,
                    "The model did not answer. Nothing was run; try again in a moment.");
        }
        String reply = answer.text() == null || answer.text().isBlank()
                ? "(The model gave no answer.)"
                : storable(answer.text());
        PlanDeliverable.Reading reading = PlanDeliverable.read(reply, sql -> analysed(conversation, sql, inventory));
        PlanEvent deliverable = PlanDeliverable.event(reading, conversation, turnId);
        TurnRecorded turn = new TurnRecorded(UUID.randomUUID(), TurnRecorded.SCHEMA_VERSION, Instant.now(),
                conversation.tenantId(), conversation.userId(), conversation.conversationId(), turnId,
                dev.countersign.contracts.api.ChatRequest.PLAN, text, List.of(), reply, List.of(), Ending.ANSWERED,
                // A plan turn reads catalog statistics, never rows; it carries on what the history brought in.
                earlier.stream().anyMatch(TurnRecorded::tainted));
        boolean recorded = metrics.recording(() -> recorder.record(deliverable, turn, evidence));
        return new PlanReply(conversation.conversationId(), turnId, dev.countersign.contracts.api.ChatRequest.PLAN,
                reply, reading.verdict(), deliverable,
                new PlanReply.Grounding(inventory.tables().size(), inventory.sizeUnknown()), recorded);
    }

    /** PostgreSQL's analysis of a drafted statement; when the database cannot answer, a statement it has not read. */
    private StatementAnalysis.Result analysed(ConversationKey conversation, String sql, SchemaInventory inventory) {
        try {
            return analysis.analyse(conversation.tenantId(), sql, inventory);
        } catch (RuntimeException e) {
            LOG.warnf("The drafted statement of a plan turn in conversation %s could not be analysed: %s",
                    conversation.conversationId(), e.getClass().getSimpleName());
            return StatementAnalysis.unavailable(e instanceof io.smallrye.mutiny.TimeoutException
                    ? "the database did not answer in time"
                    : "the database refused the connection or failed");
        }
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
            calls.add(new TurnRecorded.ToolCall(storable(call.id()), storable(call.name()), storable(call.arguments()),
                    result));
            listener.toolAnswered(call.name());
            scope.proposals().subList(before, scope.proposals().size()).forEach(listener::proposed);
        }
        return new TurnRecorded.ToolRound(calls);
    }

    /** Asks the model, giving up when the turn's wall clock runs out (the HTTP call is abandoned, not awaited). */
    private AiMessage ask(List<ChatMessage> messages, List<ToolSpecification> specifications, Duration remaining)
            throws TimeoutException {
        if (remaining.isNegative() || remaining.isZero()) {
            throw new TimeoutException();
        }
        ChatRequest request = ChatRequest.builder().messages(List.copyOf(messages))
                .toolSpecifications(specifications).build();
        Future<AiMessage> answer;
        try {
            // The call runs on this pool to be abandoned at the deadline; it stays in the turn's trace.
            answer = modelCalls.submit(Context.current()
                    .wrap(() -> metrics.modelCall(() -> model.chat(request)).aiMessage()));
        } catch (RejectedExecutionException e) {
            throw new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE,
                    "Too many conversations are waiting for the model; nothing was changed. Try again in a moment.");
        }
        try {
            return answer.get(remaining.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer.cancel(true);
            throw new IllegalStateException("interrupted while waiting for the model", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime
                    ? runtime
                    : new IllegalStateException(e.getCause());
        }
    }

    /**
     * The newest turns of the conversation, oldest first: at most {@code history-turns}, and no more than
     * {@code history-chars} characters of recorded turns (the newest turn always counts, however long).
     */
    private List<TurnRecorded> earlierTurns(ConversationKey conversation) {
        List<TurnRecorded> all = conversations.turns(conversation, history.historyTurns());
        int chars = 0;
        int first = all.size();
        while (first > 0) {
            chars += Json.write(all.get(first - 1)).length();
            if (chars > history.historyChars() && first < all.size()) {
                break;
            }
            first--;
        }
        return all.subList(first, all.size());
    }

    /** PostgreSQL stores no NUL in jsonb; what the model sent is recorded with it replaced. */
    private static String storable(String text) {
        return text == null ? null : text.replace('\u0000', '\uFFFD');
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
