package dev.countersign.executor.telemetry;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.MDC;

import dev.countersign.executor.action.ActionRow;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Uni;

/**
 * Where an action's trace and log fields are made, in one place.
 * <p>
 * Traces: a proposal arrives on Kafka with the chat turn's trace context in its {@code traceparent} header (the
 * messaging layer continues that trace); {@link #currentTraceParent()} is stored with the action when it is staged, and
 * {@link #execution} makes the execution a span of that trace, however much later a person confirms it, with a link to
 * the trace of the confirmation itself (the HTTP request or the decision event). An action applied on arrival is
 * executed inside the staging trace already.
 * <p>
 * Logs: {@link #withLogFields} puts the tenant and action ids in the logging MDC (JSON logs show them, next to the
 * trace and span ids the OpenTelemetry extension adds) for the duration of the work. Never a token: none is passed
 * here.
 * <p>
 * Limits: a record that arrives without a {@code traceparent} starts its trace at the executor's consumer span, and its
 * execution joins that one; an action staged before V15 (or with tracing off) starts a trace at execution. The MDC
 * lives in the Vert.x duplicated context of the request or message; work that hops to another context (a timer, a
 * worker pool) logs without these fields.
 */
@ApplicationScoped
public class ActionTelemetry {

    public static final String TENANT_ID_FIELD = "tenantId";
    public static final String ACTION_ID_FIELD = "actionId";
    static final AttributeKey<String> ACTION_ID = AttributeKey.stringKey("countersign.action.id");
    static final AttributeKey<String> ACTION_KIND = AttributeKey.stringKey("countersign.action.kind");
    static final AttributeKey<String> TENANT_ID = AttributeKey.stringKey("countersign.tenant.id");
    private static final String TRACEPARENT = "traceparent";
    private static final TextMapGetter<Map<String, String>> MAP_GETTER = new TextMapGetter<>() {

        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final Tracer tracer;

    public ActionTelemetry(Tracer tracer) {
        this.tracer = tracer;
    }

    /** The W3C {@code traceparent} of the current span, or null when there is none (tracing off, untraced record). */
    public String currentTraceParent() {
        Map<String, String> carrier = new HashMap<>();
        W3CTraceContextPropagator.getInstance().inject(Context.current(), carrier, Map::put);
        return carrier.get(TRACEPARENT);
    }

    /**
     * Runs {@code work} (the execution of {@code action}) as a span of the action's own trace: a child of the context
     * its proposal was staged in, linked to the current one (the confirmation) when that is another trace.
     */
    public <T> Uni<T> execution(ActionRow action, Supplier<Uni<T>> work) {
        return Uni.createFrom().deferred(() -> {
            SpanContext confirmation = Span.current().getSpanContext();
            Context parent = parentOf(action, confirmation);
            var builder = tracer.spanBuilder("countersign execute " + action.kind())
                    .setParent(parent)
                    .setAttribute(ACTION_ID, action.id().toString())
                    .setAttribute(ACTION_KIND, action.kind())
                    .setAttribute(TENANT_ID, action.tenantId());
            if (confirmation.isValid()
                    && !confirmation.getTraceId().equals(Span.fromContext(parent).getSpanContext().getTraceId())) {
                builder.addLink(confirmation);
            }
            Span span = builder.startSpan();
            // Current until the work ends, on this request's or message's own (duplicated) Vert.x context: its log
            // lines carry this trace's ids. Anywhere else (a root context, a plain thread) a scope left open could
            // outlive the work or be closed elsewhere, so the span is only ended there.
            Scope current = VertxContext.isOnDuplicatedContext() ? span.makeCurrent() : Scope.noop();
            Uni<T> started;
            try {
                started = work.get();
            } catch (RuntimeException e) {
                end(span, current, e);
                throw e;
            }
            return started.onTermination().invoke((item, failure, cancelled) -> end(span, current, failure));
        });
    }

    private static void end(Span span, Scope current, Throwable failure) {
        if (failure != null) {
            span.recordException(failure);
            span.setStatus(StatusCode.ERROR);
        }
        current.close();
        span.end();
    }

    /** Runs {@code work} with the tenant and action ids in the logging MDC, removed when it ends. */
    public static <T> Uni<T> withLogFields(String tenantId, UUID actionId, Supplier<Uni<T>> work) {
        return Uni.createFrom().deferred(() -> {
            Object outerTenant = MDC.put(TENANT_ID_FIELD, tenantId);
            Object outerAction = MDC.put(ACTION_ID_FIELD, String.valueOf(actionId));
            // Nested (a batch's members inside its request): the outer fields come back when the inner work ends.
            return work.get().onTermination().invoke(() -> {
                restore(TENANT_ID_FIELD, outerTenant);
                restore(ACTION_ID_FIELD, outerAction);
            });
        });
    }

    private static void restore(String field, Object outer) {
        if (outer == null) {
            MDC.remove(field);
        } else {
            MDC.put(field, outer);
        }
    }

    private static Context parentOf(ActionRow action, SpanContext current) {
        if (action.traceParent() == null) {
            return Context.current();
        }
        Context staged = W3CTraceContextPropagator.getInstance().extract(Context.root(),
                Map.of(TRACEPARENT, action.traceParent()), MAP_GETTER);
        SpanContext stagedSpan = Span.fromContext(staged).getSpanContext();
        if (!stagedSpan.isValid() || stagedSpan.getTraceId().equals(current.getTraceId())) {
            // Applied on arrival: already inside the staging trace.
            return Context.current();
        }
        return staged;
    }
}
