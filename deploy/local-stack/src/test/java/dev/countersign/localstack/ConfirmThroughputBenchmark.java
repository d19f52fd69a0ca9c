package dev.countersign.localstack;

import static dev.countersign.localstack.BenchmarkSupport.awaitUntil;
import static dev.countersign.localstack.BenchmarkSupport.count;
import static dev.countersign.localstack.BenchmarkSupport.countQuietly;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.Identifiers;
import dev.countersign.contracts.TenantIsolation;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.events.ActionExecuted;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.localstack.BenchmarkSupport.CpuMeter;
import dev.countersign.localstack.BenchmarkSupport.Report;

/**
 * Product target "confirm to executed": at 32 concurrent clients, the executor's confirmations per second should be at
 * least half of what raw PostgreSQL does running the same SQL on the same machine. Not asserted and not part of
 * {@code ./mvnw verify} (the failsafe and surefire includes do not match {@code *Benchmark}); run it by name, see
 * {@code deploy/bench/confirm-throughput.sh}.
 * <p>
 * One stack ({@code TestStacks.withExecutors(1)}: one executor, staged_only, so actions wait). 2 x (W + N) LOW expenses
 * are published to {@code countersign.actions.proposed} as the agent publishes them, and staged. Then:
 * <ol>
 * <li><b>service</b>: 32 client threads confirm W actions untimed (the JIT compiles the confirm path), then N timed,
 * over HTTP/1.1 (keep-alive, one JDK client per thread, bearer JWT, the token and the paramsHash, as the web UI sends
 * them); each answer must be 200 with status {@code executed}.</li>
 * <li><b>raw PostgreSQL</b>: 32 JDBC connections as the executor's application role run, per action, the statements the
 * executor runs for that confirmation, in one transaction ({@link RawConfirm}): W untimed, then N timed.</li>
 * </ol>
 * Each run's rate is taken over its steady window: from the completion of its first 15% to the moment its last request
 * started (after that, fewer than 32 are in flight). CPU time per process and per JVM thread group over that window
 * says where the time goes. Before each run the relay has published everything, so no backlog runs into it.
 * <p>
 * What the raw baseline leaves out, by design: HTTP, JWT verification, JSON (request, response, the row mapping), the
 * reactive driver and Mutiny, the parameter hash check, metrics and logging, and the outbox relay's work for the
 * service's events during the service run (during the raw run the relay, on its 0.5 s timer, publishes the raw run's
 * outbox rows too; its CPU shows in the executor's line).
 */
class ConfirmThroughputBenchmark {

    private static final String NAME = "ConfirmThroughputBenchmark";
    private static final String USER = "alice";
    private static final int ACTIONS = Integer.getInteger("bench.actions", 4000);
    private static final int CLIENTS = Integer.getInteger("bench.clients", 32);
    private static final double WARM_UP_SHARE = 0.15;
    /** Confirmed before each measured run, untimed: the JIT compiles the confirm path first (on both sides). */
    private static final int WARM_UP_ACTIONS = Integer.getInteger("bench.warmupActions", 1000);

    @Test
    void confirmToExecutedThroughputAgainstRawPostgres() throws Exception {
        Report report = new Report(NAME);
        report.line("machine: %s", BenchmarkSupport.machine());
        report.line("load average at start: %s", BenchmarkSupport.loadAverage());
        report.line("parameters: %d actions per run (ledger.transaction.create, LOW, one wallet), %d clients; before"
                + " each run %d actions confirmed the same way untimed, and the first %.0f%% of each run excluded",
                ACTIONS, CLIENTS, WARM_UP_ACTIONS, 100 * WARM_UP_SHARE);

        StackSettings settings = TestStacks.withExecutors(1);
        long stackStarted = System.nanoTime();
        try (LocalStack stack = LocalStack.start(settings);
                KafkaProducer<String, String> producer = BenchmarkSupport.agentLikeProducer(stack.bootstrapServers())) {
            report.line("stack: up in %.1f s (1 executor, staged_only); service logs in %s",
                    (System.nanoTime() - stackStarted) / 1e9, settings.logDirectory());
            report.line("executor: EXECUTOR_DB_POOL_SIZE=%s, QUARKUS_DATASOURCE_REACTIVE_CACHE_PREPARED_STATEMENTS=%s"
                    + " (unset: the service's defaults, 20 and false)", System.getenv("EXECUTOR_DB_POOL_SIZE"),
                    System.getenv("QUARKUS_DATASOURCE_REACTIVE_CACHE_PREPARED_STATEMENTS"));
            String tenant = "bench-" + UUID.randomUUID();
            UUID wallet;
            try (Connection owner = stack.ownerConnection()) {
                wallet = DemoData.createWallet(owner, tenant, USER, "Checking", "EUR");
                report.line("PostgreSQL: %s, fsync=%s, synchronous_commit=%s, max_connections=%s",
                        show(owner, "server_version"), show(owner, "fsync"), show(owner, "synchronous_commit"),
                        show(owner, "max_connections"));
            }
            String bearer = stack.tokens().mint(tenant, USER, Audiences.EXECUTOR, Duration.ofHours(2));
            String evidence = AgentEvidence.of(stack, tenant, USER);

            // --- stage 2 x N proposals through Kafka, as the agent would ---
            List<ExpenseProposal> all = new ArrayList<>();
            for (int i = 0; i < 2 * (WARM_UP_ACTIONS + ACTIONS); i++) {
                all.add(BenchmarkSupport.expense(tenant, USER, wallet, i));
            }
            List<ExpenseProposal> serviceWarmUp = all.subList(0, WARM_UP_ACTIONS);
            List<ExpenseProposal> viaService = all.subList(WARM_UP_ACTIONS, WARM_UP_ACTIONS + ACTIONS);
            List<ExpenseProposal> rawWarmUp = all.subList(WARM_UP_ACTIONS + ACTIONS, 2 * WARM_UP_ACTIONS + ACTIONS);
            List<ExpenseProposal> viaRaw = all.subList(2 * WARM_UP_ACTIONS + ACTIONS, all.size());
            long stagingStarted = System.nanoTime();
            for (ExpenseProposal proposal : all) {
                producer.send(AgentEvidence.proposal(proposal, evidence));
            }
            producer.flush();
            boolean staged = awaitUntil(Duration.ofSeconds(180), () -> countQuietly(stack,
                    "SELECT count(*) FROM actions WHERE tenant_id = ? AND status = 'proposed'", tenant) == all.size());
            assertThat(staged).as("all %d proposals staged within 180 s", all.size()).isTrue();
            double stagingSeconds = (System.nanoTime() - stagingStarted) / 1e9;
            report.line("staging (informative): %d proposals staged from Kafka in %.1f s (%.0f/s, one consumer)",
                    all.size(), stagingSeconds, all.size() / stagingSeconds);
            awaitOutboxPublished(stack, tenant);

            CpuMeter cpu = new CpuMeter(settings.dataDirectory().resolve("postgres"));

            // --- (a) the service: HTTP confirms ---
            String confirmUrl = stack.executorUrl() + "/api/actions/%s/confirm";
            Run.of(CLIENTS, serviceWarmUp, cpu, () -> new HttpConfirm(confirmUrl, bearer));
            awaitOutboxPublished(stack, tenant);
            long commitsBefore = commits(stack);
            Run service = Run.of(CLIENTS, viaService, cpu, () -> new HttpConfirm(confirmUrl, bearer));
            long relayStarted = System.nanoTime();
            awaitOutboxPublished(stack, tenant);
            double relayLag = (System.nanoTime() - relayStarted) / 1e9;
            double serviceCommits = (commits(stack) - commitsBefore) / (double) ACTIONS;
            assertThat(service.failures()).as("confirms that did not answer 200 executed: %s", service.errors())
                    .isZero();
            assertThat(executed(stack, viaService)).as("service run: executed").isEqualTo(ACTIONS);

            // --- (b) raw PostgreSQL: the same statements over JDBC ---
            String jdbcUrl = "jdbc:postgresql://localhost:%d/%s".formatted(settings.postgresPort(),
                    LocalPostgres.DATABASE);
            boolean traceParent;
            try (Connection owner = stack.ownerConnection()) {
                traceParent = hasColumn(owner, "actions", "trace_parent");
            }
            String columns = RawConfirm.COLUMNS + (traceParent ? ", trace_parent" : "");
            Run.of(CLIENTS, rawWarmUp, cpu, () -> new RawConfirm(jdbcUrl, tenant, columns));
            awaitOutboxPublished(stack, tenant);
            commitsBefore = commits(stack);
            Run raw = Run.of(CLIENTS, viaRaw, cpu, () -> new RawConfirm(jdbcUrl, tenant, columns));
            awaitOutboxPublished(stack, tenant);
            double rawCommits = (commits(stack) - commitsBefore) / (double) ACTIONS;
            assertThat(raw.failures()).as("raw transactions that failed: %s", raw.errors()).isZero();
            assertThat(executed(stack, viaRaw)).as("raw run: executed").isEqualTo(ACTIONS);
            assertThat(count(stack, "SELECT count(*) FROM transactions WHERE tenant_id = ?", tenant))
                    .as("ledger rows").isEqualTo(all.size());

            report.line("");
            report.line("(a) service, HTTP POST /api/actions/{id}/confirm, %d clients:", CLIENTS);
            service.describe(report, "confirm");
            report.line("    relay: every ActionExecuted of the run published %.1f s after the last answer", relayLag);
            report.line("    PostgreSQL commits per confirm, relay included: %.2f", serviceCommits);
            report.line("(b) raw PostgreSQL, the executor's confirm SQL over JDBC, %d connections as %s%s:", CLIENTS,
                    LocalPostgres.EXECUTOR_ROLE, traceParent ? " (actions.trace_parent selected too)" : "");
            raw.describe(report, "transaction");
            report.line("    PostgreSQL commits per transaction, the relay's (on its timer) included: %.2f",
                    rawCommits);
            report.line("");
            report.line("RESULT confirm-to-executed: service %.0f/s, raw PostgreSQL %.0f/s, ratio service/raw %.2f"
                    + " (target >= 0.50)", service.rate(), raw.rate(), service.rate() / raw.rate());
            report.line("raw baseline includes: BEGIN, the 4 transaction-local set_config (TenantTransactions), the"
                    + " locked read with token, the confirm CAS, SAVEPOINT, the ledger INSERT, the mark-executed CAS,"
                    + " the outbox + conversation-ledger INSERT, COMMIT; every trigger and RLS policy fires as for the"
                    + " service. It excludes HTTP, JWT, JSON, the reactive driver, the hash check, metrics, logging"
                    + " and the relay publishing to Kafka. JDBC reuses server-side prepared statements"
                    + " (prepareThreshold 5).");
            report.line("load average at end: %s", BenchmarkSupport.loadAverage());
            report.publish();
        }
    }

    /** One load run: N items, T threads each with its own worker, every call timed. */
    private static final class Run {

        private final long[] started;
        private final long[] ended;
        private final boolean[] ok;
        private final List<String> errors = new CopyOnWriteArrayList<>();
        private final List<CpuMeter.Sample> samples = new CopyOnWriteArrayList<>();
        private long windowFrom;
        private long windowTo;

        private Run(int size) {
            started = new long[size];
            ended = new long[size];
            ok = new boolean[size];
        }

        interface Worker<T> extends AutoCloseable {

            /** Does one item's work; true if it ended as it should. */
            boolean run(T item) throws Exception;

            @Override
            void close() throws Exception;
        }

        static <T> Run of(int threads, List<T> items, CpuMeter cpu,
                java.util.concurrent.Callable<Worker<T>> workers) throws Exception {
            Run run = new Run(items.size());
            AtomicInteger next = new AtomicInteger();
            CountDownLatch ready = new CountDownLatch(threads);
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> clients = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Worker<T> worker = workers.call();
                Thread client = new Thread(() -> {
                    try (worker) {
                        ready.countDown();
                        go.await();
                        for (int i = next.getAndIncrement(); i < items.size(); i = next.getAndIncrement()) {
                            run.started[i] = System.nanoTime();
                            try {
                                run.ok[i] = worker.run(items.get(i));
                            } catch (Exception e) {
                                run.errors.add(e.toString());
                            }
                            run.ended[i] = System.nanoTime();
                        }
                    } catch (Exception e) {
                        run.errors.add(e.toString());
                    }
                }, "bench-client-" + t);
                clients.add(client);
                client.start();
            }
            ready.await();
            Thread sampler = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    run.samples.add(cpu.sample());
                    try {
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "bench-cpu-sampler");
            sampler.start();
            go.countDown();
            for (Thread client : clients) {
                client.join();
            }
            sampler.interrupt();
            sampler.join();
            run.samples.add(cpu.sample());
            long[] ends = run.ended.clone();
            Arrays.sort(ends);
            run.windowFrom = ends[(int) (ends.length * WARM_UP_SHARE)];
            run.windowTo = Arrays.stream(run.started).max().orElseThrow();
            return run;
        }

        long failures() {
            int failed = 0;
            for (boolean done : ok) {
                failed += done ? 0 : 1;
            }
            return failed;
        }

        List<String> errors() {
            return errors.subList(0, Math.min(5, errors.size()));
        }

        /** Completions per second within the steady window. */
        double rate() {
            return completedBetween(windowFrom, windowTo) / ((windowTo - windowFrom) / 1e9);
        }

        private long completedBetween(long from, long to) {
            long completed = 0;
            for (long end : ended) {
                completed += end > from && end <= to ? 1 : 0;
            }
            return completed;
        }

        void describe(Report report, String unit) {
            List<Double> latencies = new ArrayList<>();
            for (int i = 0; i < ended.length; i++) {
                if (started[i] >= windowFrom && ended[i] <= windowTo) {
                    latencies.add((ended[i] - started[i]) / 1e6);
                }
            }
            long first = Arrays.stream(started).min().orElseThrow();
            long last = Arrays.stream(ended).max().orElseThrow();
            report.line("    %d %ss in %.1f s; steady window %.1f s to %.1f s: %d completed, %.0f/s",
                    ended.length, unit, (last - first) / 1e9, (windowFrom - first) / 1e9, (windowTo - first) / 1e9,
                    completedBetween(windowFrom, windowTo), rate());
            report.line("    latency per %s (started and ended in the window): %s", unit,
                    BenchmarkSupport.distribution(latencies));
            CpuMeter.Sample from = samples.stream().filter(s -> s.nanos() >= windowFrom).findFirst().orElse(null);
            CpuMeter.Sample to = samples.stream().filter(s -> s.nanos() <= windowTo)
                    .reduce((a, b) -> b).orElse(null);
            if (from != null && to != null && to.nanos() > from.nanos()) {
                report.line("    CPU in the window (%.1f s, %d %ss):", (to.nanos() - from.nanos()) / 1e9,
                        completedBetween(from.nanos(), to.nanos()), unit);
                for (String line : CpuMeter.describe(from, to, completedBetween(from.nanos(), to.nanos()), unit)) {
                    report.line("      %s", line);
                }
            }
        }
    }

    /** A person's confirm over HTTP/1.1, as the web UI sends it: bearer token, the one-time token and paramsHash. */
    private static final class HttpConfirm implements Run.Worker<ExpenseProposal> {

        private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        private final String urlFormat;
        private final String bearer;

        HttpConfirm(String urlFormat, String bearer) {
            this.urlFormat = urlFormat;
            this.bearer = bearer;
        }

        @Override
        public boolean run(ExpenseProposal proposal) throws Exception {
            HttpRequest request = HttpRequest.newBuilder(URI.create(urlFormat.formatted(proposal.id())))
                    .header("Authorization", "Bearer " + bearer).header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.ofString(Json.write(Map.of("paramsHash",
                            proposal.paramsHash()))))
                    .build();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(response.statusCode() + " " + response.body());
            }
            JsonNode status = Json.mapper().readTree(response.body()).get("status");
            return status != null && "executed".equals(status.asText());
        }

        @Override
        public void close() {
            // The JDK client closes its connections when it is collected (no close() before Java 21).
        }
    }

    /**
     * The SQL executor-service runs for one HTTP confirmation of a LOW {@code ledger.transaction.create}, copied
     * statement by statement, each in the same order and one transaction, over JDBC as the executor's application role.
     * The SQL texts keep the executor's {@code $n} placeholders ({@link Sql} turns them into JDBC's). Not run, because
     * they do not apply to this action: {@code ProcessedEvents.onFirstDelivery} (an HTTP confirm has no event id),
     * {@code SeparationOfDuties.check} (only HIGH actions read the approval policy), {@code EarnedTrust.executed} (only
     * MEDIUM actions count trust; this kind is LOW or HIGH), and the failure path ({@code ROLLBACK TO SAVEPOINT},
     * {@code markFailed}).
     */
    private static final class RawConfirm implements Run.Worker<ExpenseProposal> {

        /** ActionRepository.COLUMNS (the executor's working tree adds trace_parent with migration V15). */
        static final String COLUMNS = "id, tenant_id, requested_by, conversation_id, turn_id, kind, tier, status,"
                + " params::text AS params, params_hash, summary, proposed_at, expires_at, confirmed_by, confirmed_at,"
                + " executed_at, result::text AS result, idempotency_key(id) AS idempotency_key, target_version,"
                + " target_before::text AS target_before, auto_applied, undone_by, undone_at";

        /** TenantTransactions.begin: the tenant, actor, channel and reason, transaction-local. */
        private static final Sql BEGIN = new Sql("SELECT " + TenantIsolation.setTenant("$1")
                + ", set_config('countersign.actor', $2, true), set_config('countersign.channel', $3, true),"
                + " set_config('countersign.reason', $4, true)");
        /** ActionExecution.execute: the savepoint a refused write rolls back to. */
        private static final String SAVEPOINT = "SAVEPOINT execute_action";
        /** CreateTransactionExecutor.execute. */
        private static final Sql INSERT_TRANSACTION = new Sql("""
                INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, description, occurred_on,
                                          source_action_id)
                SELECT $1, w.tenant_id, w.id, $4, $5, $6, $7, $8
                FROM wallets w WHERE w.id = $3 AND w.tenant_id = $2
                RETURNING id, wallet_id, amount::text AS amount, version""");
        /** OutboxWriter.append: the outbox row and the conversation ledger's, in one statement. */
        private static final Sql INSERT_OUTBOX = new Sql("""
                WITH ledger AS (
                    INSERT INTO conversation_events (event_id, tenant_id, user_id, conversation_id, type,
                                                     occurred_at, payload)
                    SELECT $1, $2, $6, $7, $8, $9, $5::text::jsonb WHERE $6::text IS NOT NULL AND $7::text IS NOT NULL
                    ON CONFLICT (event_id) DO NOTHING)
                INSERT INTO outbox (event_id, tenant_id, topic, message_key, payload) VALUES ($1, $2, $3, $4, $5)""");

        private final String tenant;
        private final Connection connection;
        private final PreparedStatement begin;
        private final PreparedStatement storedTokenHash;
        private final PreparedStatement lock;
        private final PreparedStatement confirm;
        private final Statement savepoint;
        private final PreparedStatement insertTransaction;
        private final PreparedStatement markExecuted;
        private final PreparedStatement insertOutbox;
        private final Sql lockSql;
        private final Sql confirmSql;
        private final Sql markExecutedSql;

        RawConfirm(String jdbcUrl, String tenant, String columns) throws SQLException {
            this.tenant = tenant;
            // ActionRepository.lockWithToken
            lockSql = new Sql("SELECT " + columns
                    + " FROM actions WHERE id = $1 AND tenant_id = $2 AND token_hash = $3 FOR UPDATE");
            // ActionRepository.confirm
            confirmSql = new Sql(
                    """
                            UPDATE actions SET status = 'confirmed', confirmed_by = $4, confirmed_at = now(), version = version + 1
                            WHERE id = $1 AND tenant_id = $2 AND token_hash = $3 AND status = 'proposed' AND expires_at > now()
                            RETURNING\s"""
                            + columns);
            // ActionRepository.markExecuted -> finish(CONFIRMED, EXECUTED)
            markExecutedSql = new Sql("UPDATE actions SET status = 'executed', result = $2::text::jsonb"
                    + ", executed_at = now(), version = version + 1 WHERE id = $1 AND status = 'confirmed'"
                    + " RETURNING " + columns);
            connection = DriverManager.getConnection(jdbcUrl, LocalPostgres.EXECUTOR_ROLE,
                    LocalPostgres.EXECUTOR_PASSWORD);
            connection.setAutoCommit(false);
            begin = BEGIN.prepare(connection);
            // ActionRepository.tokenHash: a signed-in person's decision matches the stored hash
            storedTokenHash = connection.prepareStatement(
                    "SELECT token_hash FROM actions WHERE id = ? AND tenant_id = ?");
            lock = lockSql.prepare(connection);
            confirm = confirmSql.prepare(connection);
            savepoint = connection.createStatement();
            insertTransaction = INSERT_TRANSACTION.prepare(connection);
            markExecuted = markExecutedSql.prepare(connection);
            insertOutbox = INSERT_OUTBOX.prepare(connection);
        }

        @Override
        public boolean run(ExpenseProposal proposal) throws SQLException {
            try {
                boolean executed = confirmAndExecute(proposal);
                connection.commit();
                return executed;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            }
        }

        private boolean confirmAndExecute(ExpenseProposal proposal) throws SQLException {
            // DecisionService.tokenHash (a decision by the signed-in person, as over HTTP)
            storedTokenHash.setObject(1, proposal.id());
            storedTokenHash.setString(2, tenant);
            String tokenHash;
            try (ResultSet stored = storedTokenHash.executeQuery()) {
                if (!stored.next()) {
                    return false;
                }
                tokenHash = stored.getString(1);
            }
            // TenantTransactions.run -> begin: Actor(tenant, user, "http", no reason)
            BEGIN.bind(begin, tenant, USER, "http", "");
            begin.executeQuery().close();
            // DecisionService.confirm -> ActionRepository.lockWithToken
            lockSql.bind(lock, proposal.id(), tenant, tokenHash);
            try (ResultSet locked = lock.executeQuery()) {
                if (!locked.next()) {
                    return false;
                }
            }
            // ActionRepository.confirm (the compare-and-swap proposed -> confirmed)
            confirmSql.bind(confirm, proposal.id(), tenant, tokenHash, USER);
            JsonNode params;
            try (ResultSet confirmed = confirm.executeQuery()) {
                if (!confirmed.next()) {
                    return false;
                }
                params = Json.mapper().readTree(confirmed.getString("params"));
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
            // ActionExecution.execute
            savepoint.execute(SAVEPOINT);
            // CreateTransactionExecutor.execute
            INSERT_TRANSACTION.bind(insertTransaction, UUID.randomUUID(), tenant,
                    UUID.fromString(params.get("walletId").asText()), new BigDecimal(params.get("amount").asText()),
                    params.get("category").asText(), params.path("description").asText(null),
                    LocalDate.parse(params.get("occurredOn").asText()), proposal.id());
            JsonNode result;
            try (ResultSet written = insertTransaction.executeQuery()) {
                if (!written.next()) {
                    return false;
                }
                result = Json.mapper().createObjectNode().put("transactionId", written.getString("id"))
                        .put("walletId", written.getString("wallet_id")).put("amount", written.getString("amount"))
                        .put("version", written.getLong("version"));
            }
            // ActionExecution.write -> ActionRepository.markExecuted (the compare-and-swap confirmed -> executed)
            markExecutedSql.bind(markExecuted, proposal.id(), Json.write(result));
            ActionExecuted event;
            try (ResultSet executed = markExecuted.executeQuery()) {
                if (!executed.next()) {
                    return false;
                }
                // OutcomeEvents.executed
                event = new ActionExecuted(UUID.randomUUID(), ActionExecuted.SCHEMA_VERSION,
                        executed.getObject("executed_at", OffsetDateTime.class).toInstant(), proposal.id(), tenant,
                        executed.getString("requested_by"), executed.getString("conversation_id"),
                        executed.getString("kind"), executed.getString("summary"),
                        executed.getString("confirmed_by"), result);
            }
            // ActionExecution.write -> EarnedTrust.executed: nothing for a LOW action.
            // ActionExecution.write -> OutboxWriter.append
            String payload = Json.write(event);
            boolean toLedger = Identifiers.isPrintableId(event.userId())
                    && Identifiers.isPrintableId(event.conversationId()) && !payload.contains("\\u0000");
            INSERT_OUTBOX.bind(insertOutbox, event.eventId(), tenant, Topics.ACTIONS_OUTCOMES,
                    proposal.id().toString(), payload, toLedger ? event.userId() : null, event.conversationId(),
                    ActionExecuted.class.getSimpleName(), event.occurredAt().atOffset(ZoneOffset.UTC));
            insertOutbox.executeUpdate();
            return true;
        }

        @Override
        public void close() throws SQLException {
            connection.close();
        }
    }

    /** A statement with the reactive client's {@code $n} placeholders, run through JDBC's positional {@code ?}. */
    private static final class Sql {

        private static final Pattern PLACEHOLDER = Pattern.compile("\\$(\\d+)");

        private final String jdbc;
        private final int[] slots;

        Sql(String sql) {
            List<Integer> found = new ArrayList<>();
            Matcher matcher = PLACEHOLDER.matcher(sql);
            StringBuilder text = new StringBuilder();
            while (matcher.find()) {
                found.add(Integer.parseInt(matcher.group(1)));
                matcher.appendReplacement(text, "?");
            }
            matcher.appendTail(text);
            jdbc = text.toString();
            slots = found.stream().mapToInt(Integer::intValue).toArray();
        }

        PreparedStatement prepare(Connection connection) throws SQLException {
            return connection.prepareStatement(jdbc);
        }

        /** Binds {@code values[n - 1]} to every occurrence of {@code $n}. */
        void bind(PreparedStatement statement, Object... values) throws SQLException {
            for (int i = 0; i < slots.length; i++) {
                statement.setObject(i + 1, values[slots[i] - 1]);
            }
        }
    }

    private static long executed(LocalStack stack, List<ExpenseProposal> proposals) throws SQLException {
        try (Connection owner = stack.ownerConnection();
                var query = owner.prepareStatement(
                        "SELECT count(*) FROM actions WHERE status = 'executed' AND id = ANY (?)")) {
            query.setArray(1, owner.createArrayOf("uuid", proposals.stream().map(ExpenseProposal::id).toArray()));
            try (var rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    /** Waits until the relay has published every outbox row of the tenant, so that no backlog runs into a run. */
    private static void awaitOutboxPublished(LocalStack stack, String tenant) throws InterruptedException {
        boolean drained = awaitUntil(Duration.ofSeconds(120), () -> countQuietly(stack,
                "SELECT count(*) FROM outbox WHERE tenant_id = ? AND published_at IS NULL", tenant) == 0);
        assertThat(drained).as("outbox published within 120 s").isTrue();
    }

    /**
     * Transactions committed in the database so far (pg_stat_database; a backend reports at most once a second, so this
     * waits 1.5 s first).
     */
    private static long commits(LocalStack stack) throws SQLException, InterruptedException {
        Thread.sleep(1500);
        return count(stack, "SELECT xact_commit FROM pg_stat_database WHERE datname = ?", LocalPostgres.DATABASE);
    }

    private static String show(Connection connection, String setting) throws SQLException {
        try (var rows = connection.createStatement().executeQuery("SHOW " + setting)) {
            rows.next();
            return rows.getString(1);
        }
    }

    private static boolean hasColumn(Connection connection, String table, String column) throws SQLException {
        try (var query = connection.prepareStatement(
                "SELECT 1 FROM information_schema.columns WHERE table_name = ? AND column_name = ?")) {
            query.setString(1, table);
            query.setString(2, column);
            try (var rows = query.executeQuery()) {
                return rows.next();
            }
        }
    }
}
