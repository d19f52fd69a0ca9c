package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.events.ActionDecided;
import dev.countersign.contracts.events.ActionProposed;
import dev.countersign.contracts.json.Json;
import dev.countersign.contracts.json.ParamsHash;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.Race;
import dev.countersign.devsupport.testing.TopicRecords;

/**
 * The stateful property's model of one tenant's actions: what each should be after every step, the steps themselves
 * (each against the running services, over HTTP and Kafka), and the invariants checked in the database after each.
 */
final class LifecycleModel {

    /** What the model expects of an action. CLOSING: its window was closed; the sweep or the next touch expires it. */
    enum Expected {
        PROPOSED, EXECUTED, CANCELLED, CLOSING, EXPIRED
    }

    static final class Tracked {

        final UUID id = UUID.randomUUID();
        String proposal;
        /** What the person's card shows: every confirm names it. */
        String paramsHash;
        Expected expected = Expected.PROPOSED;

        @Override
        public String toString() {
            return id.toString().substring(0, 8) + "(" + expected + ")";
        }
    }

    private static final Set<String> TERMINAL = Set.of("executed", "cancelled", "expired", "failed");
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final LocalStack stack;
    private final TopicRecords kafka;
    private final ExecutorService threads;
    private final String tenant = "prop-" + UUID.randomUUID();
    private final UUID wallet;
    private final String alice;
    private final String tokenDesk;
    private final String bob;
    private final String mallory;
    /** alice's agent token, sent with every proposal as the agent does. */
    private final String evidence;
    final List<Tracked> actions = new ArrayList<>();

    private LifecycleModel(LocalStack stack, TopicRecords kafka, ExecutorService threads) {
        this.stack = stack;
        this.kafka = kafka;
        this.threads = threads;
        try (Connection owner = stack.ownerConnection()) {
            wallet = DemoData.createWallet(owner, tenant, "alice", "Checking", "EUR");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        alice = stack.tokens().mint(tenant, "alice", Audiences.EXECUTOR, Duration.ofHours(1));
        // An approver who did not ask for the actions: the decision rule refuses the requester their own token.
        tokenDesk = stack.tokens().mint(tenant, "token-desk", Audiences.EXECUTOR, Duration.ofHours(1));
        bob = stack.tokens().mint(tenant, "bob", Audiences.EXECUTOR, Duration.ofHours(1));
        mallory = stack.tokens().mint("other-" + tenant, "mallory", Audiences.EXECUTOR, Duration.ofHours(1));
        evidence = AgentEvidence.of(stack, tenant, "alice");
    }

    static LifecycleModel fresh(LocalStack stack, TopicRecords kafka, ExecutorService threads) {
        return new LifecycleModel(stack, kafka, threads);
    }

    // --- steps ---

    /** The agent proposes an expense; the step ends once an executor shows it staged. */
    void propose(int cents) throws Exception {
        Tracked action = new Tracked();
        ObjectNode params = Json.mapper().createObjectNode()
                .put("walletId", wallet.toString())
                .put("amount", "%d.%02d".formatted(cents / 100, cents % 100))
                .put("category", "coffee")
                .put("description", "property step")
                .put("occurredOn", LocalDate.now().toString());
        action.paramsHash = ParamsHash.of(params);
        action.proposal = Json.write(new ActionProposed(UUID.randomUUID(), ActionProposed.SCHEMA_VERSION,
                Instant.now(), action.id, tenant, "alice", "c-property", UUID.randomUUID(),
                "ledger.transaction.create", params, action.paramsHash, null, null, true));
        kafka.send(Topics.ACTIONS_PROPOSED, action.id.toString(), action.proposal, AgentEvidence.header(evidence));
        await().atMost(WAIT).until(() -> status(action) != null);
        actions.add(action);
    }

    /** The same proposal event again (same event id): the executor must change nothing. */
    void redeliverProposal(Tracked action) {
        kafka.send(Topics.ACTIONS_PROPOSED, action.id.toString(), action.proposal, AgentEvidence.header(evidence));
    }

    void confirm(Tracked action, int instance, boolean byBob) throws Exception {
        Http.Answer answer = Http.post(url(instance, action, "confirm"), byBob ? bob : alice,
                Map.of("paramsHash", action.paramsHash));
        expectDecision(action, answer, "executed");
    }

    /** A user of another tenant who holds the card: the same 404 as an unknown id, and nothing changes. */
    void confirmFromAnotherTenant(Tracked action, int instance) throws Exception {
        Http.Answer answer = Http.post(url(instance, action, "confirm"), mallory,
                Map.of("paramsHash", action.paramsHash));
        assertThat(answer.status()).as(answer.text()).isEqualTo(404);
        assertThat(answer.body().get("code").asText()).isEqualTo("action_not_found");
    }

    void cancel(Tracked action, int instance) throws Exception {
        Http.Answer answer = Http.post(url(instance, action, "cancel"), alice, Map.of());
        expectDecision(action, answer, "cancelled");
    }

    /** {@code n} confirms at once, alternating between the two executor instances: exactly one may win. */
    void concurrentConfirms(Tracked action, int n) throws Exception {
        List<Callable<Http.Answer>> confirms = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String url = url(i % 2, action, "confirm");
            confirms.add(() -> Http.post(url, alice, Map.of("paramsHash", action.paramsHash)));
        }
        int winners = 0;
        Expected before = action.expected;
        for (Http.Answer answer : Race.together(confirms, threads)) {
            if (answer.status() == 200) {
                winners++;
            } else {
                assertThat(answer.status()).as(answer.text()).isEqualTo(409);
            }
        }
        assertThat(winners).as("winners of %d confirms of a %s action", n, before)
                .isEqualTo(before == Expected.PROPOSED ? 1 : 0);
        action.expected = next(before, "executed");
    }

    /** A confirm arriving twice on the decisions topic with the same event id: at most one effect. */
    void confirmByEventTwice(Tracked action) throws Exception {
        // An approver asks the executor for the action's token, as the integration would; once decided there is
        // none to issue, and a made-up token must change nothing either.
        Http.Answer issued = Http.post(url(0, action, "reissue-token"), tokenDesk, Map.of());
        String token = issued.status() == 200 ? issued.body().get("confirmToken").asText() : "not-issued";
        String decision = Json.write(new ActionDecided(UUID.randomUUID(), ActionDecided.SCHEMA_VERSION, Instant.now(),
                action.id, tenant, "alice", ActionDecided.Decision.CONFIRM, token, "slack", null,
                action.paramsHash));
        kafka.send(Topics.ACTIONS_DECISIONS, action.id.toString(), decision);
        kafka.send(Topics.ACTIONS_DECISIONS, action.id.toString(), decision);
        if (action.expected == Expected.PROPOSED) {
            await().atMost(WAIT).until(() -> !"proposed".equals(status(action)));
            action.expected = Expected.EXECUTED;
        }
    }

    /** The clock passes the action's deadline (the window is shortened to now, which the database allows). */
    void closeWindow(Tracked action) throws SQLException {
        try (Connection owner = stack.ownerConnection();
                var close = owner.prepareStatement(
                        "UPDATE actions SET expires_at = least(expires_at, greatest(proposed_at + interval '1 millisecond',"
                                + " now())) WHERE id = ? AND status = 'proposed'")) {
            close.setObject(1, action.id);
            int closed = close.executeUpdate();
            if (action.expected != Expected.CLOSING) {
                assertThat(closed).as("closing %s", action).isEqualTo(action.expected == Expected.PROPOSED ? 1 : 0);
            }
        }
        if (action.expected == Expected.PROPOSED) {
            action.expected = Expected.CLOSING;
        }
    }

    /** All or none: executes every action only if every one was still proposed. */
    void confirmBatch(List<Tracked> batch) throws Exception {
        List<Map<String, String>> items = batch.stream()
                .map(action -> Map.of("actionId", action.id.toString(), "paramsHash",
                        action.paramsHash))
                .toList();
        Http.Answer answer = Http.post(stack.executorUrls().get(0) + "/api/actions/confirm-batch", alice,
                Map.of("items", items));
        boolean allProposed = batch.stream().allMatch(action -> action.expected == Expected.PROPOSED);
        assertThat(answer.status()).as(answer.text()).isEqualTo(allProposed ? 200 : 409);
        if (allProposed) {
            batch.forEach(action -> action.expected = Expected.EXECUTED);
        }
    }

    /** After the chain: every closed window has been swept, and what was asynchronous has landed. */
    void settle() throws Exception {
        for (Tracked action : actions) {
            if (action.expected == Expected.CLOSING) {
                await().atMost(WAIT).until(() -> "expired".equals(status(action)));
                action.expected = Expected.EXPIRED;
            }
        }
        // Nothing late may break them either: a redelivered event or a second sweep arriving within half a second.
        await().during(Duration.ofMillis(500)).atMost(WAIT).untilAsserted(this::checkInvariants);
    }

    private void expectDecision(Tracked action, Http.Answer answer, String winnerStatus) {
        Expected before = action.expected;
        if (before == Expected.PROPOSED) {
            assertThat(answer.status()).as(answer.text()).isEqualTo(200);
            assertThat(answer.body().get("status").asText()).isEqualTo(winnerStatus);
        } else {
            assertThat(answer.status()).as(answer.text()).isEqualTo(409);
            assertThat(answer.body().get("action").get("status").asText()).isEqualTo(wire(next(before, "")));
        }
        action.expected = next(before, winnerStatus);
    }

    /** A decision on a proposed action wins; on a closed window it expires the action; otherwise nothing changes. */
    private static Expected next(Expected before, String winnerStatus) {
        return switch (before) {
            case PROPOSED -> winnerStatus.isEmpty() ? before : Expected.valueOf(winnerStatus.toUpperCase());
            case CLOSING -> Expected.EXPIRED;
            default -> before;
        };
    }

    private static String wire(Expected expected) {
        return expected.name().toLowerCase();
    }

    private String url(int instance, Tracked action, String decision) {
        return stack.executorUrls().get(instance) + "/api/actions/" + action.id + "/" + decision;
    }

    // --- invariants, read around the services as the owner ---

    /**
     * After every step: at most one execution per action; at most one terminal status, reached once; a complete audit
     * trail ending in the current status; one outbox event per committed state change; and the model agrees.
     */
    void checkInvariants() {
        try (Connection owner = stack.ownerConnection()) {
            // One snapshot: a sweep or a late decision event committing between two queries must not look like a gap.
            owner.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            owner.setAutoCommit(false);
            Map<UUID, Integer> ledgerRows = ledgerRowsPerAction(owner);
            ledgerRows.forEach((action, rows) -> assertThat(rows).as("ledger rows of %s", action).isEqualTo(1));
            int executed = 0;
            for (Tracked action : actions) {
                String status = statusOf(owner, action.id);
                List<String[]> history = historyOf(owner, action.id);
                if ("executed".equals(status)) {
                    executed++;
                    assertThat(ledgerRows).as("ledger row of executed %s", action).containsKey(action.id);
                } else {
                    assertThat(ledgerRows).as("ledger row of %s %s", status, action).doesNotContainKey(action.id);
                }
                assertCompleteTrail(action, status, history);
                assertThat(outboxEventsOf(owner, action.id)).as("outbox events of %s", action)
                        .isEqualTo(history.stream().filter(LifecycleModel::isCommittedChange).count());
                assertModelAgrees(action, status);
            }
            assertThat(ledgerRows).hasSize(executed);
            owner.rollback();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void assertCompleteTrail(Tracked action, String status, List<String[]> history) {
        assertThat(history).as("history of %s", action).isNotEmpty();
        assertThat(history.get(0)[0]).as("first entry of %s", action).isNull();
        assertThat(history.get(0)[1]).isEqualTo("proposed");
        for (int i = 1; i < history.size(); i++) {
            assertThat(history.get(i)[0]).as("entry %d of %s continues the trail", i, action)
                    .isEqualTo(history.get(i - 1)[1]);
        }
        assertThat(history.get(history.size() - 1)[1]).as("trail of %s ends in its status", action).isEqualTo(status);
        long terminalEntries = history.stream().filter(entry -> TERMINAL.contains(entry[1])).count();
        assertThat(terminalEntries).as("terminal entries of %s", action).isEqualTo(TERMINAL.contains(status) ? 1 : 0);
    }

    private static void assertModelAgrees(Tracked action, String status) {
        if (action.expected == Expected.CLOSING) {
            assertThat(status).as("status of %s", action).isIn("proposed", "expired");
        } else {
            assertThat(status).as("status of %s", action).isEqualTo(wire(action.expected));
        }
    }

    /**
     * A state change that commits on its own. proposed -> confirmed never does: the same transaction executes or fails
     * the action, and one event reports both moves. A token reissue is no state change.
     */
    private static boolean isCommittedChange(String[] entry) {
        return !"confirmed".equals(entry[1]) && !entry[1].equals(entry[0]);
    }

    private String status(Tracked action) throws SQLException {
        try (Connection owner = stack.ownerConnection()) {
            return statusOf(owner, action.id);
        }
    }

    private static String statusOf(Connection owner, UUID id) throws SQLException {
        try (var query = owner.prepareStatement("SELECT status FROM actions WHERE id = ?")) {
            query.setObject(1, id);
            var rows = query.executeQuery();
            return rows.next() ? rows.getString(1) : null;
        }
    }

    private static List<String[]> historyOf(Connection owner, UUID id) throws SQLException {
        try (var query = owner.prepareStatement(
                "SELECT from_status, to_status FROM action_history WHERE action_id = ? ORDER BY id")) {
            query.setObject(1, id);
            var rows = query.executeQuery();
            List<String[]> entries = new ArrayList<>();
            while (rows.next()) {
                entries.add(new String[]{rows.getString(1), rows.getString(2)});
            }
            return entries;
        }
    }

    private static long outboxEventsOf(Connection owner, UUID id) throws SQLException {
        try (var query = owner.prepareStatement("SELECT count(*) FROM outbox WHERE message_key = ?")) {
            query.setString(1, id.toString());
            var rows = query.executeQuery();
            rows.next();
            return rows.getLong(1);
        }
    }

    private Map<UUID, Integer> ledgerRowsPerAction(Connection owner) throws SQLException {
        try (var query = owner.prepareStatement("SELECT source_action_id, count(*) FROM transactions"
                + " WHERE tenant_id = ? AND source_action_id IS NOT NULL GROUP BY source_action_id")) {
            query.setString(1, tenant);
            var rows = query.executeQuery();
            Map<UUID, Integer> counts = new HashMap<>();
            while (rows.next()) {
                counts.put(rows.getObject(1, UUID.class), rows.getInt(2));
            }
            return counts;
        }
    }

    @Override
    public String toString() {
        return tenant + " " + actions;
    }
}
