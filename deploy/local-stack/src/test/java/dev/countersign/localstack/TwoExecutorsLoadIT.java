package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.events.ActionDecided;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.TopicRecords;

/**
 * Two executor-service processes under load and a crash: a few hundred staged expenses (LOW and HIGH) and transfers
 * between two wallets (MEDIUM, two legs each) are each confirmed at once over HTTP on both instances and as a
 * decisions-topic event published twice with one event id, from 32 client threads; half-way one executor is SIGKILLed
 * and started again. Afterwards every action is executed exactly once: one ledger row per expense, the wallet moved by
 * exactly their sum, one transfer with exactly its two legs per transfer, one {@code executed} entry in each history,
 * one {@code ActionExecuted} event id per action in the outbox and on the outcomes topic (a relay may repeat it, never
 * mint another), and every HTTP answer was the one winner's 200, a 409 naming {@code executed}, or a broken connection
 * to the instance while it was down. The throughput it prints is informative, not asserted. It runs on the shared stack
 * ({@link SharedStacks}) with a tenant of its own, and starts the killed executor again before it goes on, so the stack
 * is whole again for the classes after it.
 */
@ResourceLock(SharedStacks.LOCK)
class TwoExecutorsLoadIT {

    private static final int ACTIONS = 300;
    private static final int CLIENT_THREADS = 32;
    /** Every fourth expense is at or above the default high-impact threshold (500.00): HIGH. */
    private static final int HIGH_EVERY = 4;
    /**
     * Every fourth action after those is a transfer (MEDIUM) from the Checking wallet to Savings: the kind of two legs
     * (issue 41) held to the same exactly-once checks, and its legs to theirs.
     */
    private static final int TRANSFER_EVERY = 4;
    /** The executor SIGKILLed half-way and started again. */
    private static final int VICTIM = 1;
    /** The integration channel the decision events claim (recorded in the history of the actions they win). */
    private static final String CHANNEL = "load-test";
    /**
     * How many actions ahead of its HTTP confirms an action's decision event goes out. Under this load the decisions
     * consumer is slower than HTTP, so an event sent with the HTTP pair would only ever arrive after it; sent a little
     * ahead, the topic and HTTP reach the same actions at the same time and either may win.
     */
    private static final int DECISION_LEAD = 24;
    private static final Duration SETTLE = Duration.ofSeconds(120);

    /**
     * One staged expense and the decision event an integration would relay, with the confirm token an approver asked
     * the executor for (null until staged).
     */
    private record Proposal(UUID id, String paramsHash, BigDecimal amount, boolean transfer, String event,
            UUID decisionId, String decision) {

        /** The decision event, with the token the executor issued for this action. */
        Proposal decidedWith(String tenant, String token) {
            return new Proposal(id, paramsHash, amount, transfer, event, decisionId, Json.write(new ActionDecided(
                    decisionId, ActionDecided.SCHEMA_VERSION, Instant.now(), id, tenant, "alice",
                    ActionDecided.Decision.CONFIRM, token, CHANNEL, null, paramsHash)));
        }
    }

    /** One HTTP confirm: status -1 is a broken or refused connection. */
    private record Attempt(UUID actionId, int instance, long startedNanos, long endedNanos, int status,
            String actionStatus, String text) {

        boolean overlaps(long fromNanos, long toNanos) {
            return endedNanos >= fromNanos && startedNanos <= toNanos;
        }
    }

    @Test
    void confirmsUnderLoadOnTwoExecutorsWithOneKilledExecuteEveryActionExactlyOnce() throws Exception {
        long stackStarted = System.nanoTime();
        LocalStack stack = SharedStacks.twoExecutors();
        try (KafkaProducer<String, String> producer = StackAccess.producer(stack.bootstrapServers())) {
            long stackUp = System.nanoTime();
            System.out.printf("TwoExecutorsLoadIT: stack up in %.1f s (shared: near zero if started before); service"
                    + " logs in %s%n", seconds(stackUp - stackStarted), stack.settings().logDirectory());
            String tenant = "load-" + UUID.randomUUID();
            UUID wallet;
            UUID savings;
            try (Connection owner = stack.ownerConnection()) {
                wallet = DemoData.createWallet(owner, tenant, "alice", "Checking", "EUR");
                savings = DemoData.createWallet(owner, tenant, "alice", "Savings", "EUR");
            }
            String alice = stack.tokens().mint(tenant, "alice", Audiences.EXECUTOR, Duration.ofHours(1));
            String evidence = AgentEvidence.of(stack, tenant, "alice");
            List<Proposal> proposals = proposals(tenant, wallet, savings);
            Set<UUID> expenses = proposals.stream().filter(proposal -> !proposal.transfer()).map(Proposal::id)
                    .collect(Collectors.toSet());
            Map<UUID, BigDecimal> transfers = proposals.stream().filter(Proposal::transfer)
                    .collect(Collectors.toMap(Proposal::id, Proposal::amount));

            // --- stage: the agent's events, published straight to the topic, keyed by the action id ---
            long stagingStarted = System.nanoTime();
            for (Proposal proposal : proposals) {
                producer.send(AgentEvidence.record(Topics.ACTIONS_PROPOSED, proposal.id().toString(),
                        proposal.event(), evidence));
            }
            producer.flush();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> StackAccess.count(stack,
                            "SELECT count(*) FROM actions WHERE tenant_id = ? AND status = 'proposed'",
                            tenant) == ACTIONS);
            long staged = System.nanoTime();
            assertThat(StackAccess.count(stack, "SELECT count(*) FROM actions WHERE tenant_id = ? AND tier = 'high'",
                    tenant))
                    .as("HIGH actions staged").isEqualTo(ACTIONS / HIGH_EVERY);
            for (String url : stack.executorUrls()) {
                var view = Http.get(url + "/api/actions/" + proposals.get(0).id(), alice);
                assertThat(view.status()).as(view.text()).isEqualTo(200);
                assertThat(view.body().get("status").asText()).isEqualTo("proposed");
            }
            // The executor minted each action's confirm token: the integration's approver asks for it.
            // An approver who did not ask for the actions asks for their tokens (the decision rule refuses the
            // requester their own).
            proposals = issueTokens(stack, tenant,
                    stack.tokens().mint(tenant, "token-desk", Audiences.EXECUTOR, Duration.ofHours(1)), proposals);
            Map<UUID, Proposal> byId = proposals.stream()
                    .collect(Collectors.toMap(Proposal::id, proposal -> proposal));

            // --- confirm under load: two HTTP confirms (one per instance) and a twice-published decision per action ---
            Queue<Attempt> attempts = new ConcurrentLinkedQueue<>();
            AtomicInteger answered = new AtomicInteger();
            ExecutorService clients = Executors.newFixedThreadPool(CLIENT_THREADS);
            Load load = new Load(stack, producer, proposals, alice, clients, attempts, answered);
            List<Future<?>> work = new ArrayList<>();
            int killAfter = ACTIONS / 2;
            int heldBackFrom = ACTIONS * 2 / 3;
            long confirmStarted = System.nanoTime();
            Instant confirmStartedAt = Instant.now();
            long killed;
            long restarted;
            try {
                for (int i = 0; i < DECISION_LEAD; i++) {
                    load.decide(i);
                }
                for (int i = 0; i < heldBackFrom; i++) {
                    work.addAll(load.race(i));
                }
                // Half-way, with confirms in flight on both instances: SIGKILL one, then start it again.
                await().atMost(SETTLE).pollInterval(Duration.ofMillis(5))
                        .until(() -> answered.get() >= killAfter * 2);
                killed = System.nanoTime();
                stack.killExecutor(VICTIM);
                stack.restartExecutor(VICTIM, Map.of());
                restarted = System.nanoTime();
                // The last third is confirmed with the restarted instance back in the race.
                for (int i = heldBackFrom; i < ACTIONS; i++) {
                    work.addAll(load.race(i));
                }
                for (Future<?> done : work) {
                    done.get(SETTLE.toSeconds(), TimeUnit.SECONDS);
                }
            } finally {
                clients.shutdownNow();
            }
            producer.flush();

            // --- settle: everything executed, every decision event consumed, every outcome relayed ---
            await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> StackAccess.count(stack,
                    "SELECT count(*) FROM actions WHERE tenant_id = ? AND status = 'executed'", tenant) == ACTIONS);
            Set<UUID> decisionIds = proposals.stream().map(Proposal::decisionId).collect(Collectors.toSet());
            await().atMost(SETTLE).pollInterval(Duration.ofMillis(500))
                    .until(() -> processedDecisions(stack, decisionIds) == ACTIONS);
            await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> StackAccess.count(stack,
                    "SELECT count(*) FROM outbox WHERE tenant_id = ? AND published_at IS NULL", tenant) == 0);

            // --- the database, read around the services in one snapshot ---
            Map<UUID, String> winningChannel = new HashMap<>();
            Map<UUID, String> executedEventId = new HashMap<>();
            List<Instant> executedAt = new ArrayList<>();
            try (Connection owner = stack.ownerConnection()) {
                owner.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                owner.setAutoCommit(false);
                Map<UUID, String> status = new HashMap<>();
                rows(owner, "SELECT id, status, executed_at FROM actions WHERE tenant_id = ?", tenant, row -> {
                    status.put(row.getObject(1, UUID.class), row.getString(2));
                    if (row.getTimestamp(3) != null) {
                        executedAt.add(row.getTimestamp(3).toInstant());
                    }
                });
                assertThat(status).as("actions of the tenant").hasSize(ACTIONS).containsOnlyKeys(byId.keySet());
                assertThat(status.entrySet().stream().filter(entry -> !"executed".equals(entry.getValue())).toList())
                        .as("actions not executed").isEmpty();

                Map<UUID, Integer> ledgerRows = new HashMap<>();
                rows(owner, "SELECT source_action_id, count(*) FROM transactions WHERE tenant_id = ?"
                        + " GROUP BY source_action_id", tenant,
                        row -> ledgerRows.put(row.getObject(1, UUID.class), row.getInt(2)));
                assertThat(ledgerRows).as("ledger rows by source action").containsOnlyKeys(expenses);
                assertThat(other(ledgerRows, 1)).as("actions with other than one ledger row").isEmpty();
                BigDecimal expected = proposals.stream().filter(proposal -> !proposal.transfer())
                        .map(Proposal::amount).reduce(BigDecimal.ZERO, BigDecimal::add);
                List<BigDecimal> balance = new ArrayList<>();
                rows(owner, "SELECT coalesce(sum(amount), 0) FROM transactions WHERE tenant_id = ? AND wallet_id = ?",
                        List.of(tenant, wallet), row -> balance.add(row.getBigDecimal(1)));
                assertThat(balance.get(0)).as("the wallet's balance (it started empty)").isEqualByComparingTo(expected);
                // Each executed transfer: its two legs, out of Checking and into Savings, and no other.
                Map<UUID, String> legs = new HashMap<>();
                rows(owner, "SELECT t.source_action_id, string_agg(l.leg || ':' || CASE l.wallet_id WHEN ? THEN"
                        + " 'checking' WHEN ? THEN 'savings' ELSE 'other' END || ':' || l.amount, ' ' ORDER BY l.leg)"
                        + " FROM wallet_transfers t JOIN wallet_transfer_legs l ON l.transfer_id = t.id"
                        + " WHERE t.tenant_id = ? GROUP BY t.source_action_id", List.of(wallet, savings, tenant),
                        row -> legs.put(row.getObject(1, UUID.class), row.getString(2)));
                assertThat(legs).as("transfers by source action").containsOnlyKeys(transfers.keySet());
                transfers.forEach((action, amount) -> assertThat(legs.get(action)).as("the legs of %s", action)
                        .isEqualTo("1:checking:" + amount.negate().toPlainString() + " 2:savings:"
                                + amount.toPlainString()));

                Map<UUID, int[]> history = new HashMap<>();
                rows(owner, "SELECT action_id, to_status, channel FROM action_history WHERE tenant_id = ?", tenant,
                        row -> {
                            UUID action = row.getObject(1, UUID.class);
                            int[] entries = history.computeIfAbsent(action, ignored -> new int[2]);
                            if ("confirmed".equals(row.getString(2))) {
                                entries[0]++;
                            } else if ("executed".equals(row.getString(2))) {
                                entries[1]++;
                                winningChannel.put(action, row.getString(3));
                            }
                        });
                history.forEach((action, entries) -> {
                    assertThat(entries[0]).as("confirmed entries of %s", action).isEqualTo(1);
                    assertThat(entries[1]).as("executed entries of %s", action).isEqualTo(1);
                });
                assertThat(winningChannel).hasSize(ACTIONS);
                assertThat(winningChannel.values()).as("channels of the winners").allMatch(
                        channel -> channel.equals("http") || channel.equals(CHANNEL));

                Map<UUID, Integer> executedEvents = new HashMap<>();
                rows(owner, "SELECT message_key, event_id FROM outbox WHERE tenant_id = ?"
                        + " AND payload::jsonb ->> 'type' = 'ActionExecuted'", tenant, row -> {
                            UUID action = UUID.fromString(row.getString(1));
                            executedEvents.merge(action, 1, Integer::sum);
                            executedEventId.put(action, row.getString(2));
                        });
                assertThat(executedEvents).as("ActionExecuted in the outbox").containsOnlyKeys(byId.keySet());
                assertThat(other(executedEvents, 1)).as("actions with other than one ActionExecuted in the outbox")
                        .isEmpty();
                owner.rollback();
            }

            // --- the outcomes topic: one ActionExecuted event id per action (the relay may repeat it) ---
            TopicRecords kafka = new TopicRecords(stack.bootstrapServers());
            List<String> published = kafka.read(Topics.ACTIONS_OUTCOMES,
                    value -> value.contains(tenant) && value.contains("ActionExecuted"),
                    found -> found.stream().map(TwoExecutorsLoadIT::actionOf).distinct().count() == ACTIONS,
                    Duration.ofSeconds(60));
            Map<UUID, Set<String>> eventIdsOnTopic = new HashMap<>();
            for (String value : published) {
                JsonNode event = Json.mapper().readTree(value);
                assertThat(event.get("type").asText()).isEqualTo("ActionExecuted");
                eventIdsOnTopic.computeIfAbsent(UUID.fromString(event.get("actionId").asText()),
                        ignored -> new HashSet<>()).add(event.get("eventId").asText());
            }
            assertThat(eventIdsOnTopic).as("actions with ActionExecuted on the topic").containsOnlyKeys(byId.keySet());
            eventIdsOnTopic.forEach((action, ids) -> assertThat(ids).as("ActionExecuted event ids of %s", action)
                    .containsExactly(executedEventId.get(action)));

            // --- what the HTTP callers were told ---
            Map<UUID, List<Attempt>> attemptsByAction = attempts.stream()
                    .collect(Collectors.groupingBy(Attempt::actionId));
            assertThat(attemptsByAction).hasSize(ACTIONS);
            int ok = 0;
            int conflicts = 0;
            int broken = 0;
            int brokenWhileUp = 0;
            int[] httpWinsByInstance = new int[2];
            int winnersUnheard = 0;
            for (var entry : attemptsByAction.entrySet()) {
                List<Attempt> tries = entry.getValue();
                assertThat(tries).hasSize(2);
                int winners = 0;
                boolean lostAnAnswer = false;
                for (Attempt attempt : tries) {
                    if (attempt.status() == -1) {
                        broken++;
                        lostAnAnswer = true;
                        assertThat(attempt.instance()).as("a broken connection to a live instance: %s", attempt)
                                .isEqualTo(VICTIM);
                        if (!attempt.overlaps(killed, restarted)) {
                            brokenWhileUp++;
                        }
                    } else if (attempt.status() == 200) {
                        ok++;
                        winners++;
                        httpWinsByInstance[attempt.instance()]++;
                        assertThat(attempt.actionStatus()).as(attempt.text()).isEqualTo("executed");
                    } else {
                        conflicts++;
                        assertThat(attempt.status()).as(attempt.text()).isEqualTo(409);
                        assertThat(attempt.actionStatus()).as(attempt.text()).isEqualTo("executed");
                    }
                }
                boolean wonOverHttp = "http".equals(winningChannel.get(entry.getKey()));
                if (wonOverHttp && winners == 0) {
                    // The winner was the request cut off by the kill: committed, answer never delivered.
                    assertThat(lostAnAnswer).as("an HTTP win nobody heard of for %s: %s", entry.getKey(), tries)
                            .isTrue();
                    winnersUnheard++;
                } else {
                    assertThat(winners).as("HTTP winners of %s (won via %s): %s", entry.getKey(),
                            winningChannel.get(entry.getKey()), tries).isEqualTo(wonOverHttp ? 1 : 0);
                }
            }
            assertThat(brokenWhileUp).as("broken connections outside the kill-to-ready window").isZero();
            assertThat(broken).as("confirms that met the killed instance (the fault happened mid-load)").isPositive();
            assertThat(attempts).as("answers of the restarted instance")
                    .anyMatch(attempt -> attempt.instance() == VICTIM
                            && attempt.startedNanos() > restarted && attempt.status() != -1);

            // --- informative numbers, not asserted ---
            long decisionWins = winningChannel.values().stream().filter(CHANNEL::equals).count();
            executedAt.sort(null);
            Instant lastExecuted = executedAt.get(executedAt.size() - 1);
            double confirmToExecuted = Duration.between(confirmStartedAt, lastExecuted).toNanos() / 1e9;
            int duplicates = published.size() - eventIdsOnTopic.size();
            Instant killedAt = confirmStartedAt.plusNanos(killed - confirmStarted);
            long beforeKill = executedAt.stream().filter(at -> at.isBefore(killedAt)).count();
            System.out.printf("""
                    TwoExecutorsLoadIT (informative, not asserted; 2 executors, %d client threads, this machine):
                      staged %d actions (%d HIGH) from the proposals topic in %.1f s
                      confirm phase: first confirm to last executed %.1f s (%.0f actions/s overall); \
                    %d executed before the kill, in %.1f s (%.0f actions/s with both up)
                      executor %d SIGKILLed after %.1f s, ready again %.1f s later; the test ran %.1f s after \
                    the stack was up
                      winners: HTTP on executor 0: %d, on executor 1: %d, HTTP answer lost in the kill: %d, \
                    decisions topic: %d
                      HTTP answers: %d x 200, %d x 409 (executed), %d broken connections to the killed instance
                      outcomes topic: %d ActionExecuted records, %d repeated deliveries of an event id
                    """, CLIENT_THREADS, ACTIONS, ACTIONS / HIGH_EVERY, seconds(staged - stagingStarted),
                    confirmToExecuted, ACTIONS / confirmToExecuted, beforeKill, seconds(killed - confirmStarted),
                    beforeKill / seconds(killed - confirmStarted), VICTIM, seconds(killed - confirmStarted),
                    seconds(restarted - killed), seconds(System.nanoTime() - stackUp), httpWinsByInstance[0],
                    httpWinsByInstance[1], winnersUnheard, decisionWins, ok, conflicts, broken, published.size(),
                    duplicates);
        }
    }

    /** The confirming side: a client pool for the HTTP confirms and a producer for the decision events. */
    private record Load(LocalStack stack, KafkaProducer<String, String> producer, List<Proposal> proposals,
            String bearer, ExecutorService clients, Queue<Attempt> attempts, AtomicInteger answered) {

        /** Publishes action {@code i}'s decision event (an integration relaying the person's confirm). */
        void decide(int i) {
            Proposal proposal = proposals.get(i);
            producer.send(
                    new ProducerRecord<>(Topics.ACTIONS_DECISIONS, proposal.id().toString(), proposal.decision()));
        }

        /**
         * Action {@code i}'s race: its two HTTP confirms meet and go together, one per instance, while its decision
         * event (sent {@link #DECISION_LEAD} actions earlier) is in the consumers' hands and the same event, same id,
         * is sent again. Also sends the decision event of the action {@code DECISION_LEAD} further on.
         */
        List<Future<?>> race(int i) {
            Proposal proposal = proposals.get(i);
            CountDownLatch together = new CountDownLatch(2);
            List<Future<?>> calls = new ArrayList<>();
            for (int instance = 0; instance < 2; instance++) {
                int target = instance;
                calls.add(clients.submit(() -> {
                    if (target == 0) {
                        if (i + DECISION_LEAD < proposals.size()) {
                            decide(i + DECISION_LEAD);
                        }
                        decide(i);
                    }
                    together.countDown();
                    together.await(10, TimeUnit.SECONDS);
                    attempts.add(confirm(stack.executorUrls().get(target), proposal, bearer, target));
                    answered.incrementAndGet();
                    return null;
                }));
            }
            return calls;
        }
    }

    private static Attempt confirm(String executorUrl, Proposal proposal, String bearer, int instance)
            throws InterruptedException {
        long started = System.nanoTime();
        try {
            Http.Answer answer = Http.post(executorUrl + "/api/actions/" + proposal.id() + "/confirm", bearer,
                    Map.of("paramsHash", proposal.paramsHash()));
            JsonNode view = answer.status() == 200
                    ? answer.body()
                    : answer.body() == null ? null : answer.body().get("action");
            String status = view == null || view.get("status") == null ? null : view.get("status").asText();
            return new Attempt(proposal.id(), instance, started, System.nanoTime(), answer.status(), status,
                    answer.text());
        } catch (IOException brokenConnection) {
            return new Attempt(proposal.id(), instance, started, System.nanoTime(), -1, null,
                    brokenConnection.toString());
        }
    }

    /**
     * Expenses and transfers as the agent proposes them: validated and normalised by the catalogue, hashed canonically.
     * A quarter of the actions are HIGH expenses, a quarter MEDIUM transfers from {@code wallet} to {@code savings}.
     */
    private static List<Proposal> proposals(String tenant, UUID wallet, UUID savings) {
        List<Proposal> proposals = new ArrayList<>();
        for (int i = 0; i < ACTIONS; i++) {
            boolean high = i % HIGH_EVERY == 0;
            boolean transfer = i % TRANSFER_EVERY == 1;
            BigDecimal amount = BigDecimal.valueOf(high ? 50_000 + i : 100 + i, 2);
            ExpenseProposal proposal = transfer
                    ? ExpenseProposal.transfer(tenant, "alice", wallet, savings, amount, "load-" + (i % 20))
                    : ExpenseProposal.of(tenant, "alice", wallet, amount, high ? "rent" : "coffee", "load " + i,
                            "load-" + (i % 20));
            proposals.add(new Proposal(proposal.id(), proposal.paramsHash(), amount, transfer, proposal.event(),
                    UUID.randomUUID(), null));
        }
        return proposals;
    }

    /** Each staged action's confirm token, as an approver asks the executor for it, in its decision event. */
    private static List<Proposal> issueTokens(LocalStack stack, String tenant, String approver,
            List<Proposal> proposals) throws Exception {
        List<Proposal> decided = new ArrayList<>();
        for (Proposal proposal : proposals) {
            var issued = Http.post(stack.executorUrl() + "/api/actions/" + proposal.id() + "/reissue-token", approver,
                    Map.of());
            assertThat(issued.status()).as(issued.text()).isEqualTo(200);
            decided.add(proposal.decidedWith(tenant, issued.body().get("confirmToken").asText()));
        }
        return decided;
    }

    /** The entries whose count is not {@code expected}: a short failure message instead of a few hundred numbers. */
    private static Map<UUID, Integer> other(Map<UUID, Integer> counts, int expected) {
        return counts.entrySet().stream().filter(entry -> entry.getValue() != expected)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private static String actionOf(String outcome) {
        try {
            return Json.mapper().readTree(outcome).get("actionId").asText();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long processedDecisions(LocalStack stack, Set<UUID> eventIds) throws SQLException {
        try (Connection owner = stack.ownerConnection();
                var query = owner.prepareStatement("SELECT count(*) FROM processed_events"
                        + " WHERE consumer = 'executor.decisions' AND event_id = ANY (?)")) {
            query.setArray(1, owner.createArrayOf("uuid", eventIds.toArray()));
            try (var rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    @FunctionalInterface
    private interface Row {

        void read(java.sql.ResultSet row) throws SQLException;
    }

    private static void rows(Connection owner, String sql, String tenant, Row row) throws SQLException {
        rows(owner, sql, List.of(tenant), row);
    }

    private static void rows(Connection owner, String sql, List<?> parameters, Row row) throws SQLException {
        try (var query = owner.prepareStatement(sql)) {
            for (int i = 0; i < parameters.size(); i++) {
                query.setObject(i + 1, parameters.get(i));
            }
            try (var rows = query.executeQuery()) {
                while (rows.next()) {
                    row.read(rows);
                }
            }
        }
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
