package dev.countersign.executor;

import static io.restassured.RestAssured.given;

import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.ContractFixtures;
import dev.countersign.contracts.KafkaHeaders;
import dev.countersign.contracts.Requesters;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.json.ConfirmTokens;
import dev.countersign.contracts.json.Json;
import dev.countersign.contracts.json.ParamsHash;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.restassured.response.Response;

/**
 * Builds proposals from the golden {@code ActionProposed} fixture (so the executor is tested against the wire form the
 * agent is tested to produce) and sends them raw to Kafka.
 */
final class ProposalMother {

    final UUID actionId = UUID.randomUUID();
    /** The token whose hash the proposal carries: honoured only for a service principal's proposal. */
    final String token = "tok-" + UUID.randomUUID();
    private String issuedToken;
    final ObjectNode event = (ObjectNode) ContractFixtures.tree(ContractFixtures.ACTION_PROPOSED);
    /** The evidence header sent with it: the requester's agent token unless a test chose other (null: none). */
    String evidence;

    ProposalMother(String tenantId, UUID walletId, String amount) {
        event.put("eventId", UUID.randomUUID().toString());
        event.put("occurredAt", Instant.now().toString());
        event.put("actionId", actionId.toString());
        event.put("tenantId", tenantId);
        event.put("tokenHash", ConfirmTokens.hash(token));
        // Each proposal its own turn, as from a clean turn of an honest agent (a test of budgets or taint sets these).
        event.put("turnId", UUID.randomUUID().toString());
        event.put("contextClean", true);
        ObjectNode params = (ObjectNode) event.get("params");
        params.put("walletId", walletId.toString());
        params.put("amount", amount);
        rehash();
        evidence = TestProperties.agentBearer(tenantId, event.get("userId").asText());
    }

    /** An expense in the test tenant's Checking wallet. */
    ProposalMother(TestTenant tenant, String amount) {
        this(tenant.id(), tenant.wallet(), amount);
    }

    /** A proposal of {@code kind} with exactly {@code params}, by the fixture's user (alice) in {@code tenant}. */
    ProposalMother(TestTenant tenant, String kind, ObjectNode params) {
        this(tenant, "1.00");
        event.put("kind", kind);
        event.set("params", params);
        rehash();
    }

    ObjectNode params() {
        return (ObjectNode) event.get("params");
    }

    ProposalMother rehash() {
        event.put("paramsHash", ParamsHash.of(params()));
        return this;
    }

    /** The hash of the parameters as proposed: what the person's card shows. */
    String paramsHash() {
        return event.get("paramsHash").asText();
    }

    String json() {
        return Json.write(event);
    }

    /** Another requester in the same tenant, with that user's own evidence. */
    ProposalMother by(String userId) {
        event.put("userId", userId);
        evidence = TestProperties.agentBearer(event.get("tenantId").asText(), userId);
        return this;
    }

    /** The same proposal with {@code token} as its evidence header (null: no header). */
    ProposalMother withEvidence(String token) {
        evidence = token;
        return this;
    }

    void send(TopicRecords kafka) {
        kafka.send(Topics.ACTIONS_PROPOSED, actionId.toString(), json(), headers(Map.of()));
    }

    /** Sends it under a record key other than its action id, as a careless or compromised producer could. */
    void sendKeyed(TopicRecords kafka, String key) {
        kafka.send(Topics.ACTIONS_PROPOSED, key, json(), headers(Map.of()));
    }

    /** Sends it with a producer-chosen record timestamp, as an attacker with the agent's Kafka credentials could. */
    void sendStamped(TopicRecords kafka, Instant timestamp) {
        kafka.send(Topics.ACTIONS_PROPOSED, actionId.toString(), json(), headers(Map.of()), timestamp);
    }

    private Map<String, String> headers(Map<String, String> others) {
        Map<String, String> headers = new java.util.HashMap<>(others);
        if (evidence != null) {
            headers.put(KafkaHeaders.EVIDENCE, evidence);
        }
        return headers;
    }

    /**
     * Sends it as if from inside the trace {@code traceId} (32 hex digits), in a W3C {@code traceparent} header with a
     * random parent span, as the agent's client adds it.
     */
    void sendTraced(TopicRecords kafka, String traceId) {
        String parentSpan = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        kafka.send(Topics.ACTIONS_PROPOSED, actionId.toString(), json(),
                headers(Map.of("traceparent", "00-" + traceId + "-" + parentSpan + "-01")));
    }

    /** An {@code ActionDecided} for this proposal from the golden fixture: {@code decision} with {@code token}. */
    ObjectNode decided(String decision, String token) {
        ObjectNode decided = (ObjectNode) ContractFixtures.tree(ContractFixtures.ACTION_DECIDED);
        return decided.put("eventId", UUID.randomUUID().toString()).put("occurredAt", Instant.now().toString())
                .put("actionId", actionId.toString()).put("tenantId", event.get("tenantId").asText())
                .put("decision", decision).put("token", token)
                .put("paramsHash", event.get("paramsHash").asText());
    }

    /** Sends it and waits until the executor has stored it as proposed. */
    ProposalMother stage(TopicRecords kafka) throws Exception {
        send(kafka);
        Db.awaitStatus(actionId, "proposed");
        return this;
    }

    /**
     * {@code POST /api/actions/{id}/confirm} (with the proposal's {@code paramsHash}) or {@code cancel}, as
     * {@code bearer} (no Authorization header when null): the signed-in person is the authority, no token.
     */
    Response decide(String decision, String bearer) {
        // A confirm names what the person was shown (required); a cancel needs nothing.
        Map<String, String> body = "confirm".equals(decision) ? Map.of("paramsHash", paramsHash()) : Map.of();
        var request = given().contentType("application/json").body(Json.write(body));
        if (bearer != null) {
            request.header("Authorization", "Bearer " + bearer);
        }
        return request.post("/api/actions/{id}/" + decision, actionId);
    }

    /**
     * The confirm token a decision on the topic needs. For a person's proposal the executor minted it and an approver
     * who did not ask for it asks for it, as an integration deciding by event does (recorded in the history once); a
     * service principal's proposal keeps the token whose hash it sent.
     */
    String tokenFromExecutor() {
        if (Requesters.isService(event.get("userId").asText())) {
            return token;
        }
        if (issuedToken == null) {
            // An approver who did not ask for the action (the decision rule refuses a requester their own token).
            issuedToken = given().header("Authorization",
                    "Bearer " + TestProperties.executorBearer(event.get("tenantId").asText(), "token-desk"))
                    .post("/api/actions/{id}/reissue-token", actionId)
                    .then().statusCode(200).extract().jsonPath().getString("confirmToken");
        }
        return issuedToken;
    }

    /** The ledger rows this action wrote (0 or 1). */
    int ledgerRows() throws SQLException {
        return Db.count("SELECT count(*) FROM transactions WHERE source_action_id = ?", actionId);
    }

    /** A fresh expense in the test tenant's Checking wallet, staged. */
    static ProposalMother staged(TopicRecords kafka, TestTenant tenant, String amount) throws Exception {
        return new ProposalMother(tenant, amount).stage(kafka);
    }

    /** A proposal of a fresh expense, staged. */
    static ProposalMother staged(TopicRecords kafka, String tenantId, UUID walletId, String amount)
            throws Exception {
        return new ProposalMother(tenantId, walletId, amount).stage(kafka);
    }
}
