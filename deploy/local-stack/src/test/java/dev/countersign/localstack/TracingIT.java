package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Topics;
import dev.countersign.contracts.json.Json;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;

/**
 * Observability across the two processes, as a collector and a log shipper see them: one trace runs from the agent's
 * chat turn through the proposal's Kafka record to the executor's execution span (made when a person confirms, later,
 * in a request of its own that the execution links to); the services log JSON lines that carry the tenant, the action
 * and that trace, and neither the spans nor the logs carry a confirm token or a bearer token.
 */
class TracingIT {

    @Test
    void oneTraceRunsFromTheChatTurnThroughKafkaToTheExecutionAndTheLogsCarryIt() throws Exception {
        try (OtlpReceiver collector = OtlpReceiver.start()) {
            StackSettings settings = TestStacks.withExecutors(1, Map.of(
                    "OTEL_EXPORTER_OTLP_ENDPOINT", collector.url(),
                    "QUARKUS_OTEL_BSP_SCHEDULE_DELAY", "100ms",
                    "LOG_JSON", "true"));
            try (LocalStack stack = LocalStack.start(settings)) {
                var tokens = Http.post(stack.tokenUrl(), null, Map.of("tenant", "globex", "user", "carol")).body();
                String agentToken = tokens.get("agentToken").asText();
                String executorToken = tokens.get("executorToken").asText();
                var reply = Http.post(stack.agentUrl() + "/api/conversations/traced/messages", agentToken,
                        Map.of("text", "add a 620.00 software expense to Operating"));
                assertThat(reply.status()).as(reply.text()).isEqualTo(200);
                JsonNode card = reply.body().get("proposals").get(0);
                String actionId = card.get("actionId").asText();
                String action = stack.executorUrl() + "/api/actions/" + actionId;
                await().atMost(Duration.ofSeconds(30)).until(() -> Http.get(action, executorToken).status() == 200);
                var confirmed = Http.post(action + "/confirm", executorToken,
                        Map.of("paramsHash", card.get("paramsHash").asText()));
                assertThat(confirmed.status()).as(confirmed.text()).isEqualTo(200);

                var execution = awaitSpan(collector, span -> "executor-service".equals(span.service())
                        && actionId.equals(span.attributes().get("countersign.action.id")));
                String trace = execution.traceId();
                assertThat(execution.name()).startsWith("countersign execute");
                var turn = awaitSpan(collector, span -> "agent-service".equals(span.service())
                        && span.kind() == SpanKind.SPAN_KIND_SERVER && span.traceId().equals(trace));
                assertThat(turn.name()).contains("/messages");
                // The model calls (the OpenAI client's HTTP requests), made on the turn's call pool, stay in the trace.
                awaitSpan(collector, span -> "agent-service".equals(span.service())
                        && span.kind() == SpanKind.SPAN_KIND_CLIENT && span.traceId().equals(trace)
                        && span.name().startsWith("POST"));
                awaitSpan(collector, span -> "agent-service".equals(span.service())
                        && span.kind() == SpanKind.SPAN_KIND_PRODUCER && span.traceId().equals(trace)
                        && span.name().contains(Topics.ACTIONS_PROPOSED));
                awaitSpan(collector, span -> "executor-service".equals(span.service())
                        && span.kind() == SpanKind.SPAN_KIND_CONSUMER && span.traceId().equals(trace)
                        && span.name().contains(Topics.ACTIONS_PROPOSED));
                var confirmRequest = awaitSpan(collector, span -> "executor-service".equals(span.service())
                        && span.kind() == SpanKind.SPAN_KIND_SERVER && span.name().contains("/confirm"));
                assertThat(confirmRequest.traceId()).as("the confirmation is a request of its own").isNotEqualTo(trace);
                assertThat(execution.linkedTraceIds()).as("linked to the confirmation")
                        .contains(confirmRequest.traceId());

                JsonNode written = awaitLogLine(settings, "executor-service",
                        line -> actionId.equals(line.path("mdc").path("actionId").asText())
                                && line.path("message").asText().contains("written"));
                assertThat(written.path("mdc").path("tenantId").asText()).isEqualTo("globex");
                assertThat(written.path("mdc").path("traceId").asText()).isEqualTo(trace);

                List<String> secrets = List.of(agentToken, executorToken);
                for (String service : List.of("agent-service", "executor-service")) {
                    assertThat(Files.readString(settings.logDirectory().resolve(service + ".log")))
                            .as(service + " log").doesNotContain(secrets.toArray(String[]::new));
                }
                assertThat(collector.rawExports()).as("every span exported, as bytes").isNotEmpty()
                        .doesNotContain(secrets.toArray(String[]::new)).doesNotContain("620.00 software expense");
            }
        }
    }

    private static OtlpReceiver.ReceivedSpan awaitSpan(OtlpReceiver collector,
            Predicate<OtlpReceiver.ReceivedSpan> filter) {
        try {
            return await().atMost(Duration.ofSeconds(20)).until(() -> collector.first(filter), Optional::isPresent)
                    .orElseThrow();
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("no such span among those received: " + collector.all().stream()
                    .map(span -> span.service() + " " + span.kind() + " " + span.name() + " " + span.traceId())
                    .toList() + "; requests: " + collector.requests(), e);
        }
    }

    /** The first JSON line of {@code service}'s log matching {@code filter} (lines that are not JSON are skipped). */
    private static JsonNode awaitLogLine(StackSettings settings, String service, Predicate<JsonNode> filter) {
        return await().atMost(Duration.ofSeconds(20)).until(() -> {
            for (String line : Files.readAllLines(settings.logDirectory().resolve(service + ".log"))) {
                if (line.startsWith("{")) {
                    JsonNode json = Json.mapper().readTree(line);
                    if (filter.test(json)) {
                        return Optional.of(json);
                    }
                }
            }
            return Optional.<JsonNode>empty();
        }, Optional::isPresent).orElseThrow();
    }
}
