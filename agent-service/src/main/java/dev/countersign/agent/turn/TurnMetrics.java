package dev.countersign.agent.turn;

import java.time.Duration;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.conversation.ConversationKey;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.TokenUsage;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Turn and model metrics, as exposed at {@code /q/metrics}: {@code countersign_agent_turn_seconds{mode,ending}} (mode
 * act or plan; ending answered, budget_reached, model_failed, or error for a turn that ended in a refusal such as the
 * model being unavailable), {@code countersign_agent_model_call_seconds} (one HTTP call to the model, failed ones
 * included) and {@code countersign_agent_model_tokens_total{type=input|output}}.
 * <p>
 * Limits: tokens are counted only when the model's response reports its usage (an OpenAI-compatible server may not); a
 * model call abandoned at the turn's deadline is timed when it finally returns or times out in the client. Per
 * instance; labels are fixed words only, never tenants, users or model text.
 */
@ApplicationScoped
public class TurnMetrics {

    static final String TURN = "countersign.agent.turn";
    static final String MODEL_CALL = "countersign.agent.model_call";
    static final String TOKENS = "countersign.agent.model.tokens";
    static final String RECORDING = "countersign.agent.turn_recording";
    static final String ERROR = "error";
    /**
     * The histograms' last bucket below +Inf: the default (30 s) is shorter than a turn may run (TURN_WALL_CLOCK, 40
     * s), and a quantile over it would read 30 s for slower turns.
     */
    private static final Duration LONGEST = Duration.ofSeconds(120);

    private final MeterRegistry registry;
    private final Timer modelCalls;
    private final Timer recordings;

    public TurnMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.recordings = Timer.builder(RECORDING)
                .description("Time from publishing a turn to seeing it in the conversation ledger (part of a turn)")
                .publishPercentileHistogram().register(registry);
        this.modelCalls = Timer.builder(MODEL_CALL).description("Time of one call to the model")
                .publishPercentileHistogram().maximumExpectedValue(LONGEST).register(registry);
    }

    /**
     * Runs one turn of {@code mode} with the conversation's tenant and user in the log fields, and records it with the
     * ending it reports ({@link #ERROR} when it throws).
     */
    public <R> R measure(String mode, ConversationKey conversation, Supplier<R> turn, Function<R, String> ending) {
        long started = System.nanoTime();
        TurnLogFields.put(conversation);
        try {
            R reply = turn.get();
            turn(mode, ending.apply(reply), started);
            return reply;
        } catch (RuntimeException e) {
            turn(mode, ERROR, started);
            throw e;
        } finally {
            TurnLogFields.remove();
        }
    }

    private void turn(String mode, String ending, long startedNanos) {
        Timer.builder(TURN).description("Time of one chat turn, from the request to the reply")
                .tag("mode", mode.toLowerCase(Locale.ROOT)).tag("ending", ending.toLowerCase(Locale.ROOT))
                .publishPercentileHistogram().maximumExpectedValue(LONGEST)
                .register(registry)
                .record(Duration.ofNanos(System.nanoTime() - startedNanos));
    }

    /**
     * Records the turn in the ledger through {@code record}, timing it: with the model's time, what separates the
     * agent's own cost from the wait for the ledger (Kafka, the executor, PostgreSQL) in a turn's time.
     */
    public boolean recording(Supplier<Boolean> record) {
        return recordings.record(record);
    }

    /** Calls the model through {@code call}, timing it and counting the tokens its response reports. */
    ChatResponse modelCall(Supplier<ChatResponse> call) {
        ChatResponse response = modelCalls.record(call);
        TokenUsage usage = response == null ? null : response.tokenUsage();
        if (usage != null) {
            count("input", usage.inputTokenCount());
            count("output", usage.outputTokenCount());
        }
        return response;
    }

    private void count(String type, Integer tokens) {
        if (tokens != null && tokens > 0) {
            registry.counter(TOKENS, "type", type).increment(tokens);
        }
    }
}
