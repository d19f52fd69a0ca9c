package dev.countersign.agent;

import static dev.countersign.devsupport.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import jakarta.inject.Inject;

import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Topics;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.testing.CapturedLogs;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A chat turn is one trace: the HTTP request's span, and inside it the Kafka publish of its proposal (whose record
 * carries that trace to the executor in its {@code traceparent} header). Lines logged during a turn carry its tenant,
 * user and trace.
 */
@QuarkusTest
@AgentTestResources
class TracingTest {

    private static final String EXPENSE = "{\"wallet\":\"checking\",\"amount\":\"12.5\",\"category\":\"coffee\","
            + "\"occurredOn\":\"2026-11-29\"}";

    @Inject
    TestSpans spans;

    private final CapturedLogs logs = new CapturedLogs();
    private AgentFixtures fixtures;

    @BeforeEach
    void setUp() throws Exception {
        fixtures = new AgentFixtures();
        logs.install();
    }

    @AfterEach
    void stopCapturing() {
        logs.uninstall();
    }

    @Test
    void theProposalIsPublishedInsideTheTurnsTrace() {
        ScriptedModel.use(turn -> turn.pendingToolResults().isEmpty()
                ? ModelReply.toolCall("propose_expense", EXPENSE)
                : ModelReply.text("Staged for you to confirm."));

        String conversation = "c-traced-" + System.nanoTime();
        fixtures.chat(conversation, "add a 12.50 coffee expense to Checking").statusCode(200);

        SpanData turn = spans.await(span -> span.getKind() == SpanKind.SERVER
                && span.getName().contains("/api/conversations/{id}/messages")
                && span.getAttributes().asMap().values().stream()
                        .anyMatch(value -> String.valueOf(value).contains(conversation)));
        SpanData publish = spans.await(span -> span.getKind() == SpanKind.PRODUCER
                && span.getName().contains(Topics.ACTIONS_PROPOSED)
                && span.getStartEpochNanos() >= turn.getStartEpochNanos()
                && span.getEndEpochNanos() <= turn.getEndEpochNanos());
        assertThat(publish.getTraceId()).as("the publish made during the turn is in the turn's trace")
                .isEqualTo(turn.getTraceId());
    }

    @Test
    void linesLoggedDuringATurnCarryItsTenantUserAndTrace() {
        ScriptedModel.use(AgentFixtures.scriptThenAlways(ModelReply.raw("<html>502 Bad Gateway</html>")));

        String conversation = "c-logged-" + System.nanoTime();
        fixtures.chat(conversation, "hello").statusCode(503);
        SpanData turn = spans.await(span -> span.getKind() == SpanKind.SERVER
                && span.getAttributes().asMap().values().stream()
                        .anyMatch(value -> String.valueOf(value).contains(conversation)));

        ExtLogRecord line = await().atMost(Duration.ofSeconds(10)).until(
                () -> logs.first(record -> CapturedLogs.rendered(record).contains("The model failed in turn")
                        && CapturedLogs.rendered(record).contains(conversation)),
                record -> record != null);
        assertThat(line.getMdc("tenantId")).isEqualTo(fixtures.tenant);
        assertThat(line.getMdc("userId")).isEqualTo("alice");
        assertThat(line.getMdc("traceId")).isEqualTo(turn.getTraceId());
    }
}
