package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.Topics;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.model.ModelBrain;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.model.ModelReply.ToolCall;
import dev.countersign.devsupport.testing.ReliabilityReport;
import dev.countersign.devsupport.testing.TopicRecords;

/**
 * The system under the faults a user running it meets, on the real stack with a real TCP proxy (netcrusher) in front of
 * Kafka and PostgreSQL ({@code FAULT_PROXIES}): a broker that does not answer or answers late, PostgreSQL stopped and
 * started, the network to it frozen for 10 s, the broker stopped and started, agent-service killed in the middle of a
 * turn, and the outbox relay killed between publishing an outcome and marking it. After each: no action executed twice,
 * none lost, the ledger equal to the executed actions, and the services served again without a restart. Agent writes
 * are enabled, so a small expense applies on arrival: the case where a doubled proposal is a doubled write.
 */
class FaultsIT {

    /** The agent waits this long for the broker before it tells the model "pending" (PT5S in production). */
    private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(2);
    /** One attempt of the agent's Kafka producer gives up after this long (30 s in production). */
    private static final Duration PRODUCER_ATTEMPT = Duration.ofSeconds(3);
    private static final Duration RECOVERY = Duration.ofSeconds(60);

    private static StackSettings settings;
    private static LocalStack stack;
    private static KafkaProducer<String, String> producer;

    private String tenant;
    private UUID checking;
    private LedgerAudit audit;

    @BeforeAll
    static void startTheStack() throws Exception {
        settings = TestStacks.withExecutors(1, Map.of("FAULT_PROXIES", "true", "ACTIONS_AGENT_WRITES_DEFAULT",
                "enabled", "PROPOSAL_PUBLISH_TIMEOUT", "PT" + PUBLISH_TIMEOUT.toSeconds() + "S",
                "PROPOSAL_ATTEMPT_TIMEOUT_MS", String.valueOf(PRODUCER_ATTEMPT.toMillis())));
        stack = LocalStack.start(settings);
        producer = StackAccess.producer(stack.bootstrapServers());
    }

    @AfterAll
    static void stopTheStack() {
        if (producer != null) {
            producer.close();
        }
        if (stack != null) {
            stack.close();
        }
    }

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = "faults-" + UUID.randomUUID();
        try (Connection owner = stack.ownerConnection()) {
            checking = DemoData.createWallet(owner, tenant, "alice", "Checking", "EUR");
        }
        audit = new LedgerAudit(stack, tenant);
    }

    /** Whatever a test broke is whole again for the next one, even when the test failed half-way. */
    @AfterEach
    void healTheNetwork() {
        stack.kafkaNetwork().unfreeze();
        stack.kafkaNetwork().delayReplies(Duration.ZERO);
        stack.postgresNetwork().unfreeze();
    }

    // --- 1. proposing through a broker that does not acknowledge in time ---

    @Test
    void aProposalTheBrokerDoesNotAcknowledgeIsPendingAndTheModelsRetryWritesOnce() throws Exception {
        List<String> results = modelProposesTwice("4.20");
        stack.kafkaNetwork().freeze();

        JsonNode reply = chat("a coffee of 4.20, please");

        String actionId = onlyProposal(reply);
        assertPendingThenRepeated(results, actionId);
        assertThat(audit.status(actionId)).as("nothing arrives while the network is frozen").isNull();
        stack.kafkaNetwork().unfreeze();
        awaitExecutedOnce(actionId, "4.20");
        report("a proposal, then the model's repeat", "broker network frozen", 2, List.of(actionId), 0);
    }

    @Test
    void aProposalTheBrokerTookButAcknowledgedLateIsPendingAndTheModelsRetryWritesOnce() throws Exception {
        List<String> results = modelProposesTwice("4.30");
        // Requests reach the broker at once; its answers (the acknowledgement, and the executor's fetches) come late.
        stack.kafkaNetwork().delayReplies(PUBLISH_TIMEOUT.multipliedBy(2));

        JsonNode reply = chat("a coffee of 4.30, please");

        String actionId = onlyProposal(reply);
        assertPendingThenRepeated(results, actionId);
        stack.kafkaNetwork().delayReplies(Duration.ZERO);
        awaitExecutedOnce(actionId, "4.30");
        report("a proposal, then the model's repeat", "broker acknowledgement held 4 s (tool waits 2 s)", 2,
                List.of(actionId), 0);
    }

    @Test
    void aProposalWhoseProducerAttemptsTimeOutIsSentAgainByTheAgentAndWrittenOnce() throws Exception {
        List<String> results = modelProposesTwice("4.50");
        stack.kafkaNetwork().freeze();

        JsonNode reply = chat("a coffee of 4.50, please");
        String actionId = onlyProposal(reply);
        assertPendingThenRepeated(results, actionId);
        Path agentLog = settings.logDirectory().resolve("agent-service.log");
        // Frozen past several producer attempts: each times out and the agent sends the same event again.
        await().atMost(RECOVERY).until(() -> Files.readString(agentLog)
                .contains("did not take the proposal of action " + actionId + " yet"));
        await().atMost(RECOVERY).until(() -> count(Files.readString(agentLog),
                "did not take the proposal of action " + actionId + " yet") >= 2);
        stack.kafkaNetwork().unfreeze();

        awaitExecutedOnce(actionId, "4.50");
        report("a proposal, then the model's repeat", "broker network frozen past two producer attempts", 2,
                List.of(actionId), 0);
    }

    private static int count(String text, String part) {
        int found = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length())) {
            found++;
        }
        return found;
    }

    /**
     * The model proposes the expense, and after the tool's answer proposes exactly the same again (its natural retry),
     * then ends; the tool results it was sent are collected in {@code results}.
     */
    private List<String> modelProposesTwice(String amount) {
        ToolCall coffee = new ToolCall("propose_expense", ("{\"wallet\":\"Checking\",\"amount\":\"%s\","
                + "\"category\":\"coffee\",\"occurredOn\":\"%s\"}").formatted(amount, LocalDate.now()));
        List<String> results = new ArrayList<>();
        AtomicInteger request = new AtomicInteger();
        ModelBrain brain = turn -> {
            int index = request.getAndIncrement();
            results.clear();
            results.addAll(turn.toolResults());
            return index < 2 ? ModelReply.toolCalls(coffee) : ModelReply.text("Done.");
        };
        stack.model().useBrain(brain);
        return results;
    }

    private static String onlyProposal(JsonNode reply) {
        assertThat(reply.get("proposals")).as(reply.toString()).hasSize(1);
        return reply.get("proposals").get(0).get("actionId").asText();
    }

    private static void assertPendingThenRepeated(List<String> results, String actionId) {
        assertThat(results).hasSize(2);
        assertThat(results.get(0)).startsWith("Submitted action " + actionId).contains("outcome is pending")
                .contains("Do not propose it again");
        assertThat(results.get(1)).contains(actionId).contains("already proposed exactly this");
    }

    private void awaitExecutedOnce(String actionId, String amount) throws Exception {
        await().atMost(RECOVERY).until(() -> "executed".equals(audit.status(actionId)));
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                .until(() -> audit.actions() == 1 && audit.ledgerSum().compareTo(new BigDecimal(amount)) == 0);
        assertExactlyOnce();
    }

    // --- 2. PostgreSQL away during confirms ---

    @Test
    void confirmsWhilePostgresIsStoppedAnswer503WithRetryAfterAndEachActionIsExecutedOnceAfterwards()
            throws Exception {
        List<ExpenseProposal> staged = stageWaiting(12);
        Map<UUID, Integer> lastStatus = new ConcurrentHashMap<>();
        confirmAll(staged.subList(0, 4), lastStatus);

        stack.stopPostgres();
        try {
            Http.Answer refused = confirm(staged.get(4));
            assertThat(refused.status()).as(refused.text()).isEqualTo(503);
            assertThat(refused.header("Retry-After")).isEqualTo("5");
            assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
            assertThat(refused.body().get("code").asText()).isEqualTo("database_unavailable");
            await().atMost(Duration.ofSeconds(20)).until(() -> readiness() == 503);
            confirmAll(staged.subList(4, 8), lastStatus);
            assertThat(lastStatus).containsValue(503);
            Http.Answer turn = Http.post(stack.agentUrl() + "/api/conversations/c-faults/messages",
                    stack.tokens().mint(tenant, "alice", Audiences.AGENT, Duration.ofHours(1)), Map.of("text", "hi"));
            assertThat(turn.status()).as("the agent reads PostgreSQL too: " + turn.text()).isEqualTo(503);
            assertThat(turn.header("Retry-After")).isEqualTo("5");
        } finally {
            stack.startPostgres();
        }

        await().atMost(RECOVERY).until(() -> readiness() == 200);
        confirmUntilDecided(staged, lastStatus);
        for (ExpenseProposal proposal : staged) {
            assertThat(audit.status(proposal.id().toString())).isEqualTo("executed");
        }
        assertExactlyOnce();
        report("12 confirms", "PostgreSQL stopped, then started", staged.size(), ids(staged), 0);
    }

    @Test
    void confirmsDuringATenSecondNetworkFreezeToPostgresCompleteOnceWhenItThaws() throws Exception {
        List<ExpenseProposal> staged = stageWaiting(8);
        Map<UUID, Integer> lastStatus = new ConcurrentHashMap<>();
        ExecutorService clients = Executors.newFixedThreadPool(staged.size());
        try {
            stack.postgresNetwork().freeze();
            List<Future<?>> confirms = new ArrayList<>();
            for (ExpenseProposal proposal : staged) {
                confirms.add(clients.submit(() -> lastStatus.put(proposal.id(), confirm(proposal).status())));
            }
            Thread.sleep(10_000); // the length of the fault, not a wait for an outcome
            stack.postgresNetwork().unfreeze();
            for (Future<?> confirm : confirms) {
                confirm.get();
            }
        } finally {
            clients.shutdownNow();
        }

        assertThat(lastStatus.values()).allMatch(status -> status == 200 || status == 503);
        confirmUntilDecided(staged, lastStatus);
        await().atMost(RECOVERY).until(() -> readiness() == 200);
        assertExactlyOnce();
        report("8 concurrent confirms", "network to PostgreSQL frozen 10 s", staged.size(), ids(staged), 0);
    }

    // --- 3. the broker stopped and started again during proposals and confirms ---

    @Test
    void withTheBrokerStoppedConfirmsStillExecuteAndProposalsArePendingAndAfterItsRestartNothingIsLostOrDoubled()
            throws Exception {
        List<ExpenseProposal> staged = stageWaiting(6);
        ToolCall coffee = new ToolCall("propose_expense", ("{\"wallet\":\"Checking\",\"amount\":\"5.10\","
                + "\"category\":\"coffee\",\"occurredOn\":\"%s\"}").formatted(LocalDate.now()));
        AtomicInteger request = new AtomicInteger();
        stack.model().useBrain(turn -> request.getAndIncrement() == 0
                ? ModelReply.toolCalls(coffee)
                : ModelReply.text("Done."));
        String proposed;
        stack.stopBroker();
        try {
            await().atMost(RECOVERY).until(() -> readiness() == 503);
            for (ExpenseProposal proposal : staged) {
                Http.Answer confirmed = confirm(proposal);
                assertThat(confirmed.status()).as(confirmed.text()).isEqualTo(200);
            }
            proposed = onlyProposal(chat("a coffee of 5.10"));
            assertThat(audit.unpublished()).hasSizeGreaterThanOrEqualTo(staged.size());
        } finally {
            stack.startBroker();
        }

        await().atMost(RECOVERY).until(() -> readiness() == 200);
        await().atMost(RECOVERY).until(() -> "proposed".equals(audit.status(proposed)));
        assertExactlyOnce();
        TopicRecords direct = new TopicRecords(stack.directBootstrapServers());
        for (ExpenseProposal proposal : staged) {
            List<String> executed = direct.readFor(Topics.ACTIONS_OUTCOMES,
                    value -> value.contains(proposal.id().toString()) && value.contains("\"ActionExecuted\""),
                    Duration.ofSeconds(2));
            assertThat(executed).as(proposal.id().toString()).isNotEmpty();
            assertThat(executed.stream().map(FaultsIT::eventId).distinct()).as(proposal.id().toString()).hasSize(1);
        }
        List<String> all = new ArrayList<>(ids(staged));
        all.add(proposed);
        report("6 confirms and a chat proposal", "broker stopped, then started", all.size(), all, 0);
    }

    // --- 4. agent-service killed in the middle of a turn ---

    @Test
    void anAgentKilledMidTurnLeavesItsAcknowledgedProposalStagedOnceAndNothingHalfDone() throws Exception {
        ToolCall coffee = new ToolCall("propose_expense", ("{\"wallet\":\"Checking\",\"amount\":\"4.40\","
                + "\"category\":\"coffee\",\"occurredOn\":\"%s\"}").formatted(LocalDate.now()));
        java.util.concurrent.CountDownLatch killed = new java.util.concurrent.CountDownLatch(1);
        AtomicInteger request = new AtomicInteger();
        stack.model().useBrain(turn -> {
            if (request.getAndIncrement() == 0) {
                return ModelReply.toolCalls(coffee);
            }
            // The second request comes after the proposal was acknowledged: hold it until the agent is dead.
            try {
                killed.await(60, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ModelReply.text("Done.");
        });
        ExecutorService client = Executors.newSingleThreadExecutor();
        try {
            Future<JsonNode> turn = client.submit(() -> chat("a coffee of 4.40"));
            await().atMost(RECOVERY).until(() -> request.get() == 2);

            stack.killAgent(0);
            killed.countDown();
            assertThat(catching(turn)).isInstanceOf(java.util.concurrent.ExecutionException.class);
        } finally {
            killed.countDown();
            client.shutdownNow();
        }

        await().atMost(RECOVERY).until(() -> audit.actions() == 1 && audit.ledgerSum().signum() > 0);
        stack.restartAgent(0);
        stack.model().useBrain(turn -> ModelReply.text("Still here."));
        assertThat(chat("are you there?").get("reply").asText()).contains("Still here.");
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
                .until(() -> audit.actions() == 1 && audit.ledgerSum().compareTo(new BigDecimal("4.40")) == 0);
        assertExactlyOnce();
        report("a turn whose proposal was acknowledged", "agent-service SIGKILLed mid-turn", 1, audit.actionIds(), 0);
    }

    private static Throwable catching(Future<?> future) {
        try {
            future.get(RECOVERY.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            return null;
        } catch (Exception e) {
            return e;
        }
    }

    // --- 5. the outbox relay killed between publishing and marking ---

    @Test
    void anOutcomePublishedButNotMarkedBeforeTheExecutorDiedIsPublishedAgainWithTheSameEventId() throws Exception {
        ExpenseProposal proposal = stageWaiting(1).get(0);
        // The broker appends the relay's record at once; its acknowledgement is held, so the row stays unmarked.
        stack.kafkaNetwork().delayReplies(Duration.ofSeconds(15));
        assertThat(confirm(proposal).status()).isEqualTo(200);
        TopicRecords direct = new TopicRecords(stack.directBootstrapServers());
        String executed = "\"ActionExecuted\"";
        await().atMost(Duration.ofSeconds(20)).until(() -> !direct.readFor(Topics.ACTIONS_OUTCOMES,
                value -> value.contains(proposal.id().toString()) && value.contains(executed), Duration.ofSeconds(1))
                .isEmpty());
        // Hold the acknowledgement for good (a loaded machine could let the delayed one through before the kill).
        stack.kafkaNetwork().freeze();
        assertThat(audit.unpublished()).isNotEmpty();

        stack.killExecutor(0);
        stack.kafkaNetwork().unfreeze();
        stack.kafkaNetwork().delayReplies(Duration.ZERO);
        stack.restartExecutor(0, Map.of());

        await().atMost(RECOVERY).until(() -> audit.unpublished().isEmpty());
        List<String> copies = direct.readFor(Topics.ACTIONS_OUTCOMES,
                value -> value.contains(proposal.id().toString()) && value.contains(executed), Duration.ofSeconds(3));
        assertThat(copies).as("published before the kill and again after it").hasSize(2);
        assertThat(copies.stream().map(FaultsIT::eventId).distinct()).hasSize(1);
        assertExactlyOnce();
        report("a confirm's outcome", "executor SIGKILLed between publishing and marking", 1, ids(List.of(proposal)),
                0);
    }

    private static String eventId(String event) {
        try {
            return dev.countersign.contracts.json.Json.mapper().readTree(event).get("eventId").asText();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    // --- the stack, the tenant, the checks ---

    /**
     * {@code count} expenses of alice, proposed on Kafka as the agent would, staged and waiting for a person (the
     * tenant's agent writes are set to staged only for them).
     */
    private List<ExpenseProposal> stageWaiting(int count) throws Exception {
        Http.Answer policy = Http.put(stack.executorUrl() + "/api/actions/policy/agent-writes", executorBearer(),
                Map.of("mode", "staged_only"));
        assertThat(policy.status()).as(policy.text()).isEqualTo(200);
        String evidence = AgentEvidence.of(stack, tenant, "alice");
        List<ExpenseProposal> proposals = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ExpenseProposal proposal = ExpenseProposal.of(tenant, "alice", checking, new BigDecimal("10.00").add(
                    BigDecimal.valueOf(i)), "groceries", "fault suite", "c-faults");
            producer.send(AgentEvidence.record(Topics.ACTIONS_PROPOSED, proposal.id().toString(), proposal.event(),
                    evidence)).get();
            proposals.add(proposal);
        }
        await().atMost(RECOVERY).until(() -> audit.actions() == count);
        return proposals;
    }

    private void confirmAll(List<ExpenseProposal> proposals, Map<UUID, Integer> lastStatus) throws Exception {
        for (ExpenseProposal proposal : proposals) {
            lastStatus.put(proposal.id(), confirm(proposal).status());
        }
    }

    /**
     * What a client told "retry after" does: confirm again every action whose last answer was not a decision, until
     * each has one (200, or 409 because an earlier attempt went through).
     */
    private void confirmUntilDecided(List<ExpenseProposal> proposals, Map<UUID, Integer> lastStatus) {
        await().atMost(RECOVERY).pollInterval(Duration.ofMillis(500)).until(() -> {
            for (ExpenseProposal proposal : proposals) {
                Integer last = lastStatus.get(proposal.id());
                if (last == null || (last != 200 && last != 409)) {
                    lastStatus.put(proposal.id(), confirm(proposal).status());
                }
            }
            return lastStatus.values().stream().allMatch(status -> status == 200 || status == 409)
                    && lastStatus.size() == proposals.size();
        });
    }

    private Http.Answer confirm(ExpenseProposal proposal) throws Exception {
        return Http.post(stack.executorUrl() + "/api/actions/" + proposal.id() + "/confirm", executorBearer(),
                Map.of("paramsHash", proposal.paramsHash()));
    }

    private int readiness() {
        try {
            return Http.get("http://localhost:%d/q/health/ready".formatted(settings.executorManagementPort()), null)
                    .status();
        } catch (Exception e) {
            return -1;
        }
    }

    private String executorBearer() {
        return stack.tokens().mint(tenant, "alice", Audiences.EXECUTOR, Duration.ofHours(1));
    }

    private JsonNode chat(String text) throws Exception {
        String bearer = stack.tokens().mint(tenant, "alice", Audiences.AGENT, Duration.ofHours(1));
        Http.Answer answer = Http.post(stack.agentUrl() + "/api/conversations/c-faults/messages", bearer,
                Map.of("text", text));
        assertThat(answer.status()).as(answer.text()).isEqualTo(200);
        return answer.body();
    }

    /** The scenario's row for docs/reliability.md: counted from the database after its checks passed. */
    private void report(String scenario, String fault, long tried, List<String> actionIds, long unexpected)
            throws Exception {
        long lost = 0;
        for (String id : actionIds) {
            if (audit.status(id) == null) {
                lost++;
            }
        }
        ReliabilityReport.record(new ReliabilityReport.Row(FaultsIT.class.getSimpleName(), scenario, fault, tried,
                lost, audit.executedTwice().size(), unexpected));
    }

    private static List<String> ids(List<ExpenseProposal> proposals) {
        return proposals.stream().map(proposal -> proposal.id().toString()).toList();
    }

    private void assertExactlyOnce() throws Exception {
        await().atMost(RECOVERY).until(() -> audit.unpublished().isEmpty());
        assertThat(audit.executedTwice()).isEmpty();
        assertThat(audit.executedWithoutOneOutcome()).isEmpty();
        assertThat(audit.ledgerAgainstActions()).isEmpty();
        assertThat(audit.ledgerSum()).isEqualByComparingTo(audit.executedSum());
    }
}
