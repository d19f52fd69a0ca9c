package dev.countersign.agent.planmode;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.countersign.agent.conversation.ConversationHistory;
import dev.countersign.agent.conversation.ConversationKey;
import dev.countersign.agent.conversation.TurnRecorder;
import dev.countersign.agent.evidence.RequestEvidence;
import dev.countersign.agent.turn.ModelCalls;
import dev.countersign.agent.turn.TurnConfig;
import dev.countersign.agent.turn.TurnMessages;
import dev.countersign.agent.turn.TurnMetrics;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ChatRequest;
import dev.countersign.contracts.api.PlanReply;
import dev.countersign.contracts.events.PlanEvent;
import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.contracts.events.TurnRecorded.Ending;
import dev.countersign.web.ProblemException;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;

/**
 * One plan-mode turn: the server reads the schema inventory from the catalog (every time: nothing is cached, so any
 * replica after any restart grounds the same way), the model answers once with no tools, and the
 * {@link PlanDeliverable} reader decides what it delivered. The deliverable and the turn are recorded in the
 * conversation ledger. Nothing the model wrote is run.
 */
@ApplicationScoped
public class PlanTurn {

    private static final Logger LOG = Logger.getLogger(PlanTurn.class);

    private final ModelCalls model;
    private final ConversationHistory history;
    private final TurnRecorder recorder;
    private final TurnConfig budget;
    private final TurnMetrics metrics;
    private final SchemaGrounding grounding;
    private final StatementAnalysis analysis;

    public PlanTurn(ModelCalls model, ConversationHistory history, TurnRecorder recorder, TurnConfig budget,
            TurnMetrics metrics, SchemaGrounding grounding, StatementAnalysis analysis) {
        this.model = model;
        this.history = history;
        this.recorder = recorder;
        this.budget = budget;
        this.metrics = metrics;
        this.grounding = grounding;
        this.analysis = analysis;
    }

    public PlanReply run(ConversationKey conversation, RequestEvidence evidence, String text) {
        return metrics.measure(ChatRequest.PLAN, conversation, () -> plan(conversation, evidence, text),
                reply -> Ending.ANSWERED.name());
    }

    private PlanReply plan(ConversationKey conversation, RequestEvidence evidence, String text) {
        Instant deadline = Instant.now().plus(budget.wallClock());
        UUID turnId = UUID.randomUUID();
        SchemaInventory inventory = grounding.inventory(conversation.person());
        List<ChatMessage> messages = new ArrayList<>();
        messages.add(SystemMessage.from(PlanPrompt.text(LocalDate.now(), inventory)));
        List<TurnRecorded> earlier = history.earlierTurns(conversation);
        earlier.forEach(t -> messages.addAll(TurnMessages.replay(t)));
        messages.add(UserMessage.from(text));
        AiMessage answer;
        try {
            answer = model.ask(messages, List.of(), Duration.between(Instant.now(), deadline));
        } catch (TimeoutException e) {
            throw new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE, ("The model did not answer within the turn's"
                    + " budget of %s. Nothing was run; try again in a moment.").formatted(budget.wallClock()));
        } catch (RuntimeException e) {
            LOG.warnf("The model failed in plan turn %s of conversation %s: %s", turnId,
                    conversation.conversationId(), e.toString());
            // A refusal of the guards around the model (ModelCalls) says why and when to try again.
            throw e instanceof ProblemException refused
                    ? refused
                    : new ProblemException(
                            ErrorCode.UPSTREAM_UNAVAILABLE,
                            "The model did not answer. Nothing was run; try again in a moment.");
        }
        String reply = answer.text() == null || answer.text().isBlank()
                ? "(The model gave no answer.)"
                : TurnMessages.storable(answer.text());
        PlanDeliverable.Reading reading = PlanDeliverable.read(reply, sql -> analysed(conversation, sql, inventory));
        PlanEvent deliverable = PlanDeliverable.event(reading, conversation, turnId);
        TurnRecorded turn = new TurnRecorded(UUID.randomUUID(), TurnRecorded.SCHEMA_VERSION, Instant.now(),
                conversation.tenantId(), conversation.userId(), conversation.conversationId(), turnId,
                ChatRequest.PLAN, text, List.of(), reply, List.of(), Ending.ANSWERED,
                // A plan turn reads catalog statistics, never rows; it carries on what the history brought in.
                earlier.stream().anyMatch(TurnRecorded::tainted));
        boolean recorded = metrics.recording(() -> recorder.record(deliverable, turn, evidence));
        return new PlanReply(conversation.conversationId(), turnId, ChatRequest.PLAN, reply, reading.verdict(),
                deliverable, new PlanReply.Grounding(inventory.tables().size(), inventory.sizeUnknown()), recorded);
    }

    /** PostgreSQL's analysis of a drafted statement; when the database cannot answer, a statement it has not read. */
    private StatementAnalysis.Result analysed(ConversationKey conversation, String sql, SchemaInventory inventory) {
        try {
            return analysis.analyse(conversation.person(), sql, inventory);
        } catch (RuntimeException e) {
            LOG.warnf("The drafted statement of a plan turn in conversation %s could not be analysed: %s",
                    conversation.conversationId(), e.getClass().getSimpleName());
            return StatementAnalysis.unavailable(e instanceof io.smallrye.mutiny.TimeoutException
                    ? "the database did not answer in time"
                    : "the database refused the connection or failed");
        }
    }
}
