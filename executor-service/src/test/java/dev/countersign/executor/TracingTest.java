package dev.countersign.executor;

import static dev.countersign.devsupport.testing.Waits.await;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

import jakarta.inject.Inject;

import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.Topics;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.CapturedLogs;
import dev.countersign.devsupport.testing.TopicRecords;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A proposal arriving with a trace context (the chat turn's, in the record's {@code traceparent} header) has its
 * execution recorded as a span of that trace, whether a person confirms it later over HTTP or it applies on arrival;
 * and the lines logged while an action is handled carry its tenant, its id and the trace, never its token.
 */
@QuarkusTest
@ExecutorTestResources
class TracingTest {

    private static final AttributeKey<String> ACTION_ID = AttributeKey.stringKey("countersign.action.id");

    @Inject
    TestSpans spans;

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private final CapturedLogs logs = new CapturedLogs();
    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
        logs.install();
    }

    @AfterEach
    void stopCapturing() {
        logs.uninstall();
    }

    @Test
    void anExecutionConfirmedLaterOverHttpIsASpanOfTheProposalsTraceLinkedToTheConfirmation() throws Exception {
        String traceId = randomHex(32);
        var proposal = new ProposalMother(tenant, "12.50");
        proposal.sendTraced(kafka, traceId);
        Db.awaitStatus(proposal.actionId, "proposed");
        assertThat(Db.text("SELECT trace_parent FROM actions WHERE id = ?", proposal.actionId))
                .as("the staged action remembers the proposal's trace").contains(traceId);

        proposal.decide("confirm", tenant.executorBearer("alice")).then().statusCode(200);

        SpanData execution = spans.await(executionOf(proposal.actionId));
        assertThat(execution.getTraceId()).isEqualTo(traceId);
        assertThat(execution.getName()).isEqualTo("countersign execute " + ShippedKinds.CREATE_TRANSACTION);
        assertThat(execution.getLinks()).extracting(LinkData::getSpanContext)
                .as("linked to the confirming request's own trace")
                .anySatisfy(link -> assertThat(link.getTraceId()).isNotEqualTo(traceId));
        SpanData confirmRequest = spans.await(span -> span.getName().contains("/api/actions/{id}/confirm")
                && execution.getLinks().stream().anyMatch(link -> link.getSpanContext().getTraceId()
                        .equals(span.getTraceId())));
        assertThat(confirmRequest.getTraceId()).isNotEqualTo(traceId);
    }

    @Test
    void eachActionOfABatchIsExecutedInItsOwnProposalsTraceWithItsIdsInTheLogLine() throws Exception {
        List<String> traces = List.of(randomHex(32), randomHex(32));
        List<ProposalMother> proposals = List.of(new ProposalMother(tenant, "2.00"),
                new ProposalMother(tenant, "3.00"));
        for (int i = 0; i < proposals.size(); i++) {
            proposals.get(i).sendTraced(kafka, traces.get(i));
            Db.awaitStatus(proposals.get(i).actionId, "proposed");
        }
        ObjectNode body = Json.mapper().createObjectNode();
        ArrayNode items = body.putArray("items");
        proposals.forEach(proposal -> items.addObject().put("actionId", proposal.actionId.toString())
                .put("paramsHash", proposal.paramsHash()));
        given().contentType("application/json").header("Authorization", "Bearer " + tenant.executorBearer("alice"))
                .body(Json.write(body)).post("/api/actions/confirm-batch").then().statusCode(200);

        for (int i = 0; i < proposals.size(); i++) {
            UUID actionId = proposals.get(i).actionId;
            assertThat(spans.await(executionOf(actionId)).getTraceId()).isEqualTo(traces.get(i));
            ExtLogRecord written = logs.first(record -> CapturedLogs.rendered(record).contains("written")
                    && actionId.toString().equals(record.getMdc("actionId")));
            assertThat(written).as("the written line of " + actionId).isNotNull();
            assertThat(written.getMdc("traceId")).isEqualTo(traces.get(i));
            assertThat(written.getMdc("tenantId")).isEqualTo(tenant.id());
        }
    }

    @Test
    void anActionAppliedOnArrivalIsExecutedInsideTheProposalsTrace() throws Exception {
        TenantPolicies.set(tenant.id(), "agent-writes", Map.of("mode", "enabled"));
        String traceId = randomHex(32);
        var proposal = new ProposalMother(tenant, "3.00");
        proposal.sendTraced(kafka, traceId);
        Db.awaitStatus(proposal.actionId, "executed");

        SpanData execution = spans.await(executionOf(proposal.actionId));
        assertThat(execution.getTraceId()).isEqualTo(traceId);
        assertThat(execution.getLinks()).isEmpty();
        assertThat(spans.matching(span -> span.getTraceId().equals(traceId)
                && span.getName().contains("countersign.actions.proposed")))
                .as("the consumer's span of the record continues the same trace").isNotEmpty();
    }

    @Test
    void linesLoggedWhileHandlingAnActionCarryItsTenantItsIdAndTheTraceButNeitherLinesNorSpansCarryAToken()
            throws Exception {
        String rejectedTrace = randomHex(32);
        var rejected = new ProposalMother(tenant, "12.50");
        rejected.params().put("amount", "-5.00");
        rejected.rehash().sendTraced(kafka, rejectedTrace);
        ExtLogRecord line = await().atMost(Duration.ofSeconds(15)).until(
                () -> logs.first(record -> record.getMessage() != null
                        && record.getMessage().startsWith("Rejected proposal")
                        && rejected.actionId.toString().equals(record.getMdc("actionId"))),
                record -> record != null);
        assertThat(line.getMdc("tenantId")).isEqualTo(tenant.id());
        assertThat(line.getMdc("traceId")).isEqualTo(rejectedTrace);

        var confirmed = ProposalMother.staged(kafka, tenant, "12.50");
        confirmed.decide("confirm", tenant.executorBearer("alice")).then().statusCode(200);
        confirmed.decide("confirm", tenant.executorBearer("alice")).then().statusCode(409);
        // The decisions topic carries raw tokens in its payloads: a poison decision (parked) and a good one.
        String traceId = randomHex(32);
        var viaTopic = new ProposalMother(tenant, "4.00");
        viaTopic.sendTraced(kafka, traceId);
        Db.awaitStatus(viaTopic.actionId, "proposed");
        kafka.send(Topics.ACTIONS_DECISIONS, viaTopic.actionId.toString(),
                Json.write(viaTopic.decided("approve-please", viaTopic.tokenFromExecutor())));
        kafka.send(Topics.ACTIONS_DECISIONS, viaTopic.actionId.toString(),
                Json.write(viaTopic.decided("confirm", viaTopic.tokenFromExecutor())));
        Db.awaitStatus(viaTopic.actionId, "executed");

        SpanData execution = spans.await(executionOf(viaTopic.actionId));
        assertThat(execution.getTraceId()).isEqualTo(traceId);
        assertThat(execution.getLinks()).as("linked to the decision event's span").extracting(LinkData::getSpanContext)
                .anySatisfy(link -> assertThat(link.getTraceId()).isNotEqualTo(traceId));
        assertThat(logs.all()).as("captured lines").isNotEmpty()
                .allSatisfy(record -> assertThat(CapturedLogs.rendered(record))
                        .doesNotContain(viaTopic.tokenFromExecutor()));
        assertThat(spans.matching(span -> true)).allSatisfy(span -> assertThat(span.toString())
                .doesNotContain(viaTopic.tokenFromExecutor()));
    }

    private static Predicate<SpanData> executionOf(UUID actionId) {
        return span -> actionId.toString().equals(span.getAttributes().get(ACTION_ID))
                && span.getName().startsWith("countersign execute");
    }

    private static String randomHex(int length) {
        StringBuilder hex = new StringBuilder();
        while (hex.length() < length) {
            hex.append(Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE));
        }
        return hex.substring(0, length);
    }
}
