package dev.countersign.agent.turn;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.jboss.logging.Logger;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.web.ProblemException;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import io.opentelemetry.context.Context;
import io.quarkus.runtime.Startup;
import io.smallrye.faulttolerance.api.TypedGuard;

/**
 * The model, called through SmallRye Fault Tolerance: a bulkhead (at most {@link ModelCallsConfig#maxConcurrentCalls()}
 * calls in flight per instance; one more is refused at once, 503 {@code upstream_unavailable}, nothing changed) and a
 * circuit breaker (after the model kept failing, turns are refused at once for a while, with {@code Retry-After},
 * instead of each holding a thread for the client's timeout and its retry). Each call runs on a thread of its own, so a
 * turn can give up at its deadline: the HTTP call is abandoned, not awaited.
 * <p>
 * Only failures of the model's endpoint count for the breaker ({@link ModelOutages}): not a request's own 400, 413 or
 * 422, not the bulkhead's refusals. Limits: an abandoned call holds its thread and its place in the bulkhead until the
 * client's own timeout, and its failure then still counts. Both guards are per instance: with several replicas each
 * pauses on its own failures. A person can still add timeouts of their own (turns whose answers are slow): the
 * per-person limits of {@link TurnLimits} bound how many of the breaker's window one person fills.
 */
@ApplicationScoped
@Startup // the breaker exists (for its state and a reset) from start-up, not from the first turn
public class ModelCalls {

    /** The breaker's name, for {@code CircuitBreakerMaintenance} (state, reset). */
    public static final String BREAKER = "model-calls";
    private static final Logger LOG = Logger.getLogger(ModelCalls.class);

    private final ChatModel model;
    private final TurnMetrics metrics;
    private final Duration pause;
    private final TypedGuard<AiMessage> bulkhead;
    private final TypedGuard<AiMessage> breaker;
    /** Not bounded itself: only calls the guard let in hold a thread beyond a moment. */
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "model-call");
        thread.setDaemon(true);
        return thread;
    });

    public ModelCalls(ChatModel model, TurnMetrics metrics, ModelCallsConfig config) {
        this.model = model;
        this.metrics = metrics;
        this.pause = config.breaker().delay();
        // Two guards, the bulkhead outside the breaker: a refusal of the bulkhead never reaches the breaker, which would
        // count it as a success (and a busy instance's refusals could then keep it closed through an outage).
        this.bulkhead = TypedGuard.create(AiMessage.class).withDescription("calls to the model in flight")
                .withBulkhead().limit(config.maxConcurrentCalls()).done().build();
        this.breaker = TypedGuard.create(AiMessage.class).withDescription("calls to the model")
                .withCircuitBreaker().name(BREAKER).requestVolumeThreshold(config.breaker().requestVolume())
                .failureRatio(config.breaker().failureRatio()).delay(pause.toMillis(), ChronoUnit.MILLIS)
                .when(ModelOutages::isOutage)
                .onStateChange(state -> LOG.warnf("Calls to the model: circuit %s", state)).done()
                .build();
    }

    @PreDestroy
    void stop() {
        threads.shutdownNow();
    }

    /** Asks the model, giving up (TimeoutException) when {@code remaining} runs out. */
    public AiMessage ask(List<ChatMessage> messages, List<ToolSpecification> specifications, Duration remaining)
            throws TimeoutException {
        if (remaining.isNegative() || remaining.isZero()) {
            throw new TimeoutException();
        }
        ChatRequest request = ChatRequest.builder().messages(List.copyOf(messages))
                .toolSpecifications(specifications).build();
        // The call stays in the turn's trace.
        Future<AiMessage> answer = threads.submit(Context.current()
                .wrap(() -> bulkhead.call(() -> breaker.call(() -> metrics.modelCall(() -> model.chat(request))
                        .aiMessage()))));
        try {
            return answer.get(remaining.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // Not interrupted: the client's own timeout ends the call, so the breaker counts what the model did, not
            // where the turn's deadline fell.
            answer.cancel(false);
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer.cancel(false);
            throw new IllegalStateException("interrupted while waiting for the model", e);
        } catch (ExecutionException e) {
            throw refusalOrFailure(e.getCause());
        }
    }

    private RuntimeException refusalOrFailure(Throwable cause) {
        if (cause instanceof CircuitBreakerOpenException) {
            return new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE, ("The model kept failing, so calls to it are"
                    + " paused for up to %d seconds; nothing was changed. Try again then.")
                    .formatted(pause.toSeconds()), pause);
        }
        if (cause instanceof BulkheadException) {
            return new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE,
                    "Too many conversations are waiting for the model; nothing was changed. Try again in a moment.");
        }
        return cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
    }
}
