package dev.countersign.agent.turn;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.web.ProblemException;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import io.opentelemetry.context.Context;

/**
 * The model, called on a pool of its own so that a turn can give up at its deadline: the HTTP call is abandoned, not
 * awaited. At most {@value #MAX_CONCURRENT_CALLS} model calls run at once per instance; one more is refused (503
 * {@code upstream_unavailable}, nothing changed). Limit: an abandoned call holds its thread until the client's own
 * timeout.
 */
@ApplicationScoped
public class ModelCalls {

    static final int MAX_CONCURRENT_CALLS = 64;

    private final ChatModel model;
    private final TurnMetrics metrics;
    private final ExecutorService pool = new ThreadPoolExecutor(0, MAX_CONCURRENT_CALLS, 60, TimeUnit.SECONDS,
            new SynchronousQueue<>(), runnable -> {
                Thread thread = new Thread(runnable, "model-call");
                thread.setDaemon(true);
                return thread;
            });

    public ModelCalls(ChatModel model, TurnMetrics metrics) {
        this.model = model;
        this.metrics = metrics;
    }

    @PreDestroy
    void stop() {
        pool.shutdownNow();
    }

    /** Asks the model, giving up (TimeoutException) when {@code remaining} runs out. */
    public AiMessage ask(List<ChatMessage> messages, List<ToolSpecification> specifications, Duration remaining)
            throws TimeoutException {
        if (remaining.isNegative() || remaining.isZero()) {
            throw new TimeoutException();
        }
        ChatRequest request = ChatRequest.builder().messages(List.copyOf(messages))
                .toolSpecifications(specifications).build();
        Future<AiMessage> answer;
        try {
            // The call stays in the turn's trace.
            answer = pool.submit(Context.current()
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
}
