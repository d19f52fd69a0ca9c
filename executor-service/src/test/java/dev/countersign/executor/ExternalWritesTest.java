package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.equalTo;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.ContractFixtures;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.external.LocalSmtp;
import dev.countersign.devsupport.external.TicketStub;
import dev.countersign.devsupport.testing.MetricsText;
import dev.countersign.devsupport.testing.TestInfrastructure;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.execution.ExecutorRegistry;
import dev.countersign.executor.external.egress.ExternalGate;
import dev.countersign.executor.external.egress.GateScope;
import dev.countersign.executor.external.egress.GatedMailer;
import dev.countersign.executor.external.egress.UngatedCallException;
import io.quarkus.mailer.Mail;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.restassured.response.ValidatableResponse;

/**
 * mail.send over real SMTP (GreenMail) and ticket.create over real HTTP (a stub that honours idempotency keys): claim,
 * call, record; the recovery of calls nobody recorded; the runtime gate; the tenant's kill switch.
 */
@QuarkusTest
@ExecutorTestResources
class ExternalWritesTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private final LocalSmtp smtp = TestInfrastructure.smtp();
    private final TicketStub tickets = TestInfrastructure.tickets();
    private TestTenant tenant;

    @Inject
    GatedMailer mailer;

    @Inject
    ExternalGate gate;

    @Inject
    ExecutorRegistry kinds;

    @Inject
    TenantTransactions transactions;

    @Inject
    ActionRepository actions;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    @AfterEach
    void vendorBackToNormal() {
        tickets.failNext(0);
        tickets.answerAfter(Duration.ZERO);
    }

    private UUID supportCase(String requestor) throws SQLException {
        UUID id = UUID.randomUUID();
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate(("INSERT INTO support_cases (id, tenant_id, title, requestor_email)"
                    + " VALUES ('%s', '%s', 'Refund', '%s')").formatted(id, tenant.id(), requestor));
        }
        return id;
    }

    /** The stored action, as the executor reads it. */
    private ActionRow row(ProposalMother proposal) {
        return transactions.read(tenant.id(), sql -> actions.find(sql, proposal.actionId, tenant.id())).await()
                .atMost(Duration.ofSeconds(5));
    }

    /** What a claim whose instance then died leaves behind (written as the owner, around the application). */
    private static void claimedAMinuteAgo(ProposalMother proposal) throws SQLException {
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate("UPDATE actions SET status = 'confirmed', confirmed_by = 'alice',"
                    + " confirmed_at = now() - interval '1 minute' WHERE id = '" + proposal.actionId + "'");
            owner.createStatement().executeUpdate("UPDATE actions SET status = 'executing', call_started_at = now()"
                    + " - interval '1 minute' WHERE id = '" + proposal.actionId + "'");
        }
    }

    private ProposalMother mail(UUID supportCase) throws Exception {
        ObjectNode params = Json.mapper().createObjectNode().put("caseId", supportCase.toString())
                .put("subject", "Your refund").put("body", "Hello,\nyour refund is on its way.");
        return new ProposalMother(tenant, ShippedKinds.SEND_MAIL, params).stage(kafka);
    }

    private ProposalMother ticket(String title) throws Exception {
        ObjectNode params = Json.mapper().createObjectNode().put("title", title).put("description", "Printer on fire");
        return new ProposalMother(tenant, ShippedKinds.CREATE_TICKET, params).stage(kafka);
    }

    private Response confirm(ProposalMother proposal) {
        return proposal.decide("confirm", tenant.executorBearer("alice"));
    }

    private ValidatableResponse view(ProposalMother proposal) {
        return given().header("Authorization", "Bearer " + tenant.executorBearer("alice"))
                .get("/api/actions/{id}", proposal.actionId).then().statusCode(200);
    }

    private String messageIdOf(ProposalMother proposal) {
        return "<" + view(proposal).extract().path("idempotencyKey") + "@countersign>";
    }

    @Test
    void twoConcurrentConfirmsSendExactlyOneEmailToTheRequestorTheyWereShown() throws Exception {
        UUID refund = supportCase("requestor@example.org");
        var proposal = mail(refund);
        view(proposal).body("targetBefore.requestorEmail", equalTo("requestor@example.org"))
                .body("tier", equalTo("high"));

        var pool = Executors.newFixedThreadPool(2);
        try {
            var first = CompletableFuture.supplyAsync(() -> confirm(proposal).statusCode(), pool);
            var second = CompletableFuture.supplyAsync(() -> confirm(proposal).statusCode(), pool);
            assertThat(List.of(first.get(), second.get())).containsExactlyInAnyOrder(200, 409);
        } finally {
            pool.shutdown();
        }
        confirm(proposal).then().statusCode(409).body("code", equalTo("invalid_state_transition"));

        String messageId = messageIdOf(proposal);
        assertThat(smtp.withMessageId(messageId)).singleElement().satisfies(message -> {
            assertThat(message.getAllRecipients()[0].toString()).isEqualTo("requestor@example.org");
            assertThat(message.getSubject()).isEqualTo("Your refund");
        });
        view(proposal).body("status", equalTo("executed")).body("result.messageId", equalTo(messageId));
    }

    @Test
    void aDecisionFromTheDecisionsTopicSendsOnceAndABatchRefusesExternalSends() throws Exception {
        UUID refund = supportCase("requestor@example.org");
        var relayed = mail(refund);
        var batched = mail(refund);
        ObjectNode decision = relayed.decided("confirm", relayed.tokenFromExecutor());
        kafka.send(Topics.ACTIONS_DECISIONS, relayed.actionId.toString(), Json.write(decision));
        kafka.send(Topics.ACTIONS_DECISIONS, relayed.actionId.toString(), Json.write(decision)); // redelivered

        Db.awaitStatus(relayed.actionId, "executed");
        assertThat(smtp.withMessageId(messageIdOf(relayed))).hasSize(1);

        given().header("Authorization", "Bearer " + tenant.executorBearer("alice")).contentType("application/json")
                .body(Json.write(Map.of("items", List.of(Map.of("actionId", batched.actionId, "paramsHash",
                        batched.paramsHash())))))
                .post("/api/actions/confirm-batch").then().statusCode(409).body("code", equalTo("batch_refused"));
        view(batched).body("status", equalTo("proposed"));
        assertThat(smtp.withMessageId(messageIdOf(batched))).isEmpty();
    }

    @Test
    void theDatabaseRefusesAnExternalActionWrittenWithoutItsClaim() throws Exception {
        var proposal = mail(supportCase("requestor@example.org"));

        Db.refusedAsApplication(tenant.id(), "23514", "UPDATE actions SET status = 'confirmed', confirmed_by = 'alice',"
                + " confirmed_at = now() WHERE id = '%s'; UPDATE actions SET status = 'executed', executed_at = now(),"
                        .formatted(proposal.actionId)
                + " result = '{}' WHERE id = '%s'".formatted(proposal.actionId));
    }

    @Test
    void aCaseChangedSinceStagingSendsNothing() throws Exception {
        UUID refund = supportCase("requestor@example.org");
        var proposal = mail(refund);
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate("UPDATE support_cases SET requestor_email = 'attacker@example.org'"
                    + " WHERE id = '" + refund + "'");
        }

        confirm(proposal).then().statusCode(409).body("code", equalTo("target_changed"));

        assertThat(smtp.withMessageId(messageIdOf(proposal))).isEmpty();
        view(proposal).body("status", equalTo("failed"));
    }

    @Test
    void theTicketStubSeesTheActionsIdempotencyKeyAndRetriesReuseIt() throws Exception {
        var proposal = ticket("Printer");
        tickets.failNext(2); // two 503s, then an answer: three calls with one key, one ticket
        int before = tickets.ticketCount();

        confirm(proposal).then().statusCode(200).body("status", equalTo("executed"))
                .body("result.ticketId", org.hamcrest.Matchers.startsWith("T-"));

        String key = view(proposal).extract().path("idempotencyKey");
        // Through the REST Client: each call carries the confirm's trace context to the vendor.
        assertThat(tickets.requests()).filteredOn(request -> key.equals(request.idempotencyKey())).hasSize(3)
                .allSatisfy(request -> assertThat(request.body().get("title").asText()).isEqualTo("Printer"))
                .allSatisfy(request -> assertThat(request.traceparent()).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]"));
        assertThat(tickets.ticketCount()).isEqualTo(before + 1);
    }

    @Test
    void noAnswerLeavesTheActionForAPersonWhoResolvesIt() throws Exception {
        var proposal = ticket("Slow vendor");
        tickets.answerAfter(Duration.ofMillis(1500)); // longer than the test profile's 1 s call timeout

        confirm(proposal).then().statusCode(202).body("status", equalTo("needs_review"))
                .body("result.error", equalTo("outcome_unknown"));
        String key = view(proposal).extract().path("idempotencyKey");
        assertThat(tickets.requests()).filteredOn(request -> key.equals(request.idempotencyKey())).hasSize(3);

        // A finding that says nothing is refused by its record's constraints, field by field.
        given().header("Authorization", "Bearer " + tenant.executorBearer("carol")).contentType("application/json")
                .body(Json.write(Map.of("outcome", "executed", "note", " ")))
                .post("/api/actions/{id}/resolve", proposal.actionId).then().statusCode(400)
                .body("code", equalTo("validation_failed")).body("violations.field",
                        org.hamcrest.Matchers.contains("note"));
        // Its requester, no administrator, reads it but may not resolve it.
        given().header("Authorization", "Bearer " + TestProperties.executorBearerWithoutApproval(tenant.id(), "alice"))
                .contentType("application/json").body(Json.write(Map.of("outcome", "executed", "note", "trust me")))
                .post("/api/actions/{id}/resolve", proposal.actionId).then().statusCode(403)
                .body("code", org.hamcrest.Matchers.equalTo("forbidden"));
        given().header("Authorization", "Bearer " + tenant.executorBearer("carol")).contentType("application/json")
                .body(Json.write(Map.of("outcome", "executed", "note", "ticket T-1 exists")))
                .post("/api/actions/{id}/resolve", proposal.actionId)
                .then().statusCode(200).body("status", equalTo("executed")).body("result.resolvedBy", equalTo("carol"))
                .body("result.review.error", equalTo("outcome_unknown"));
        given().header("Authorization", "Bearer " + tenant.executorBearer("carol")).contentType("application/json")
                .body(Json.write(Map.of("outcome", "failed", "note", "again"))).post("/api/actions/{id}/resolve",
                        proposal.actionId)
                .then().statusCode(409).body("code", equalTo("invalid_state_transition"));
    }

    @Test
    void anActionLeftExecutingByACrashIsReviewedNotResentAndATicketIsCalledAgainWithItsKey() throws Exception {
        UUID refund = supportCase("requestor@example.org");
        var email = mail(refund);
        var ticket = ticket("Left behind");
        // The state a crash between the call and the record leaves: executing, its call started a minute ago.
        claimedAMinuteAgo(email);
        claimedAMinuteAgo(ticket);
        int mails = smtp.received().size();

        Db.awaitStatus(email.actionId, "needs_review");
        Db.awaitStatus(ticket.actionId, "executed");

        assertThat(smtp.received()).hasSize(mails);
        String key = view(ticket).extract().path("idempotencyKey");
        assertThat(tickets.requests()).filteredOn(request -> key.equals(request.idempotencyKey())).hasSize(1);
        assertThat(Db.text("SELECT channel FROM action_history WHERE action_id = ? AND to_status = 'needs_review'",
                email.actionId)).isEqualTo("recovery");
        var outcome = kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(email.actionId.toString())
                && value.contains("ActionNeedsReview"));
        assertThat(outcome).hasSize(1);
        assertThat(ContractFixtures.memberNames(Json.mapper().readTree(outcome.get(0))))
                .containsExactlyInAnyOrderElementsOf(
                        ContractFixtures.memberNames(ContractFixtures.ACTION_NEEDS_REVIEW));
    }

    @Test
    void theTenantsKillSwitchStopsExternalSendsBeforeAnythingLeaves() throws Exception {
        UUID refund = supportCase("requestor@example.org");
        var staged = mail(refund);
        given().header("Authorization", "Bearer " + tenant.executorBearer("admin")).contentType("application/json")
                .body("{\"enabled\": false}").put("/api/actions/policy/external-sends").then().statusCode(200);

        confirm(staged).then().statusCode(409).body("code", equalTo("external_sends_disabled"));
        assertThat(smtp.withMessageId(messageIdOf(staged))).isEmpty();

        var refused = new ProposalMother(tenant, ShippedKinds.CREATE_TICKET,
                Json.mapper().createObjectNode().put("title", "x").put("description", "y"));
        refused.send(kafka);
        assertThat(kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(refused.actionId.toString())))
                .singleElement().asString().contains("ActionRejected").contains("external_sends_disabled");
        assertThat(Db.status(refused.actionId)).isNull();
    }

    @Test
    void aCallOutsideAGateScopeIsRefusedAndRaisesTheAlert() throws Exception {
        double before = ungatedCalls();
        int mails = smtp.received().size();
        var proposal = mail(supportCase("requestor@example.org"));
        ActionRow staged = row(proposal);

        assertThatThrownBy(() -> mailer.send(null, Mail.withText("someone@example.org", "hi", "there")).await()
                .atMost(Duration.ofSeconds(5))).isInstanceOf(UngatedCallException.class);
        // A scope for an action that is not claimed (still proposed) is not opened.
        assertThatThrownBy(() -> gate.open(staged, kinds.externalFor(staged.kind()).orElseThrow()).await()
                .atMost(Duration.ofSeconds(5)))
                .isInstanceOf(UngatedCallException.class).hasMessageContaining("not claimed");

        assertThat(ungatedCalls()).isEqualTo(before + 2);
        assertThat(smtp.received()).hasSize(mails);
    }

    @Test
    void aScopeReachesOnlyWhatItsKindDeclares() throws Exception {
        var proposal = ticket("Scoped");
        claimedAMinuteAgo(proposal); // executing: a scope may be opened
        ActionRow executing = row(proposal);
        GateScope scope = gate.open(executing, kinds.externalFor(executing.kind()).orElseThrow()).await()
                .atMost(Duration.ofSeconds(5));
        try {
            // A client the scope made, asked to send elsewhere (a per-call URL): the gate refuses it as it is sent.
            Elsewhere client = scope.http(Elsewhere.class, Duration.ofSeconds(2));
            double alerts = ungatedCalls();
            assertThatThrownBy(() -> client.post("http://127.0.0.1:1").await().atMost(Duration.ofSeconds(5)))
                    .isInstanceOf(UngatedCallException.class)
                    .hasMessageContaining("not the origin this scope allows");
            assertThat(ungatedCalls()).isEqualTo(alerts + 1);
            // The ticket kind declares no mail: its scope sends none, though it is open.
            int mails = smtp.received().size();
            assertThatThrownBy(() -> scope.send(Mail.withText("someone@example.org", "hi", "there")).await()
                    .atMost(Duration.ofSeconds(5))).isInstanceOf(UngatedCallException.class)
                    .hasMessageContaining("does not declare that it sends mail");
            assertThat(smtp.received()).hasSize(mails);
        } finally {
            scope.close();
        }
    }

    /** A REST Client interface whose calls name their own base URL (Quarkus' {@code @Url}). */
    @jakarta.ws.rs.Path("/steal")
    public interface Elsewhere {

        @jakarta.ws.rs.POST
        io.smallrye.mutiny.Uni<String> post(@io.quarkus.rest.client.reactive.Url String url);
    }

    @Test
    void aClientKeptPastItsScopeServesNothing() throws Exception {
        var proposal = ticket("Kept");
        claimedAMinuteAgo(proposal);
        ActionRow executing = row(proposal);
        GateScope scope = gate.open(executing, kinds.externalFor(executing.kind()).orElseThrow()).await()
                .atMost(Duration.ofSeconds(5));
        var kept = scope.http(dev.countersign.executor.kinds.ticket.create.TicketSystemApi.class,
                Duration.ofSeconds(2));
        int tickets = this.tickets.requests().size();
        scope.close();

        // Closed with its scope: refused by the client itself, before the gate's filter (no alert raised).
        double alerts = ungatedCalls();
        assertThatThrownBy(() -> kept.create("kept-key", null,
                new dev.countersign.executor.kinds.ticket.create.TicketSystemApi.NewTicket("x", "y")).await()
                .atMost(Duration.ofSeconds(5))).isNotInstanceOf(UngatedCallException.class)
                .hasMessageContaining("closed");
        assertThat(ungatedCalls()).isEqualTo(alerts);
        assertThatThrownBy(() -> scope.http(Elsewhere.class, Duration.ofSeconds(2)))
                .isInstanceOf(UngatedCallException.class).hasMessageContaining("is closed");
        assertThat(this.tickets.requests()).hasSize(tickets);
    }

    private static double ungatedCalls() {
        return MetricsText.value(given().get(Management.url("/metrics")).then().statusCode(200).extract().asString(),
                "countersign_external_ungated_calls_total");
    }
}
