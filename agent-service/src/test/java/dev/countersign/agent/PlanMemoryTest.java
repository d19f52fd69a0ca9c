package dev.countersign.agent;

import static dev.countersign.agent.AgentFixtures.script;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.evidence.ReaderGrants;
import dev.countersign.agent.planmode.PlanSessions;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.testing.TestProperties;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 40: a plan statement is bounded in the database's memory. Over a tenant of 3,000 transactions (a small
 * business's year, analysed), each memory-shaped statement is refused before it runs, or runs with the plan role's
 * backend growing by less than {@link #BOUND_MIB} MiB: its peak resident memory ({@code VmHWM}, from the operating
 * system) on a fresh backend of the plan role, with a run's settings ({@link PlanSessions#settings}: the capped
 * aggregates first on the search_path) and the person's reader grant (the plan pool's backends carry earlier peaks).
 * The capped statements and the real questions are also run through the product: a plan turn drafts it, the person runs
 * it.
 * <p>
 * The instrument is checked to see what it is meant to see: the issue's own statement with PostgreSQL's uncapped
 * {@code pg_catalog.string_agg}, which the analysis refuses, grows the same backend past the bound within two seconds.
 */
@QuarkusTest
@AgentTestResources
class PlanMemoryTest {

    static final long BOUND_MIB = 64;
    private static final int ROWS = 3_000;
    private static final String CROSS_JOINED = "SELECT string_agg(t1.description || t2.description"
            + " || t3.description, '') AS s FROM transactions t1, transactions t2, transactions t3";

    private static AgentFixtures fixtures;

    @Inject
    ReaderGrants grants;

    private Person alice;

    @BeforeAll
    static void aSmallBusinesssYear() throws Exception {
        fixtures = new AgentFixtures();
        try (Connection owner = TestProperties.ownerConnection(); Statement sql = owner.createStatement()) {
            sql.execute(
                    ("INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, description, occurred_on)"
                            + " SELECT gen_random_uuid(), '%s', '%s', (i %% 97) + 0.5, 'category ' || (i %% 11),"
                            + " 'a line of an ordinary bank statement, number ' || i, current_date - (i %% 365)"
                            + " FROM generate_series(1, %d) i").formatted(fixtures.tenant, fixtures.checking, ROWS));
            sql.execute("ANALYZE transactions");
        }
    }

    @BeforeEach
    void signedIn() {
        alice = SignedIn.as(grants, fixtures.tenant, "alice");
    }

    /** Cases a hostile model tried in review against the estimate-based bound of ADR 6, and the issue's own. */
    private static final String FAKE_SELECTIVITY = "SELECT string_agg(t1.description || t2.description"
            + " || t3.description, '') AS s FROM transactions t1, transactions t2, transactions t3"
            + " WHERE t1.amount + 0 = t1.amount AND t2.amount + 0 = t2.amount AND t3.amount + 0 = t3.amount"
            + " AND t1.amount * 1 = t1.amount AND t2.amount * 1 = t2.amount AND t3.amount * 1 = t3.amount";

    private String drafted(String conversation, String statement) {
        ScriptedModel.use(script(ModelReply.text("```postgresql\n" + statement + "\n```\nAs asked.")));
        return PlanModeTest.plan(fixtures, conversation, "as asked").statusCode(200).extract().jsonPath()
                .getString("turnId");
    }

    /**
     * Values built from many rows are capped: the run ends with PostgreSQL's refusal (or the timeout) once one reaches
     * the cap, and the backend stays small. Before the cap, the first of these grew it by 500 to 900 MB.
     */
    @ParameterizedTest
    @ValueSource(strings = {
            CROSS_JOINED,
            FAKE_SELECTIVITY,
            "SELECT array_agg(t1.description) AS a FROM transactions t1 CROSS JOIN transactions t2",
            "SELECT string_agg((SELECT string_agg(description, '') FROM transactions), '') AS s FROM transactions",
            "SELECT string_agg(x, '') AS s FROM (SELECT string_agg(description, '') OVER (ORDER BY id) AS x"
                    + " FROM transactions) running"})
    void aValueBuiltFromManyRowsStopsAtTheCap(String statement) throws Exception {
        String turnId = drafted("c-capped", statement);
        String detail = PlanModeTest.run(fixtures, "c-capped", turnId, "").statusCode(400).extract().jsonPath()
                .getString("detail");
        assertThat(detail).containsAnyOf("plan runs allow 1048576", "statement timeout");

        long growth = growthMib(statement, "1s");
        System.out.printf("PlanMemoryTest: %d MiB peak growth, capped: %s%n", growth, statement);
        assertThat(growth).as(statement).isLessThan(BOUND_MIB);
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", value = {
            "SELECT ARRAY(SELECT description FROM transactions) AS a => write (SELECT array_agg(...) FROM ...) instead",
            "SELECT description FROM transactions WHERE description NOT IN (SELECT t1.description || t2.description"
                    + " FROM transactions t1, transactions t2) => NOT EXISTS",
            "SELECT pg_catalog.string_agg(description, '') AS s FROM transactions => by their plain names",
            "SELECT string_agg(description::bytea, ''::bytea) AS s FROM transactions => by their plain names"})
    void whatTheCapCannotSeeIsRefusedBeforeItRuns(String statement, String reason) {
        ScriptedModel.use(script(ModelReply.text("```postgresql\n" + statement + "\n```\nAs asked.")));

        PlanModeTest.plan(fixtures, "c-refused", "as asked").statusCode(200)
                .body("deliverable.guard.singleSelect", org.hamcrest.Matchers.equalTo(false))
                .body("deliverable.guard.reason", org.hamcrest.Matchers.containsString(reason));
    }

    /** Planning folds constants, keeping every intermediate value: a long chain of a long constant is refused. */
    @org.junit.jupiter.api.Test
    void aStatementWhoseConstantsFoldIntoHundredsOfMegabytesIsRefused() {
        String chain = java.util.stream.IntStream.range(0, 1000).mapToObj(i -> "a")
                .collect(java.util.stream.Collectors.joining("||"));
        String folding = "SELECT " + chain + " AS s FROM (SELECT '" + "x".repeat(1000) + "'::text AS a) c";
        ScriptedModel.use(script(ModelReply.text("```postgresql\n" + folding + "\n```\nAs asked.")));

        PlanModeTest.plan(fixtures, "c-folding", "as asked").statusCode(200)
                .body("deliverable.guard.singleSelect", org.hamcrest.Matchers.equalTo(false))
                .body("deliverable.guard.reason", org.hamcrest.Matchers.containsString("Use shorter constants"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT category, string_agg(description, ', ') AS notes FROM transactions GROUP BY category",
            "SELECT w.name, array_agg(t.amount ORDER BY t.amount) AS amounts FROM wallets w"
                    + " JOIN transactions t ON t.wallet_id = w.id GROUP BY w.name",
            // Wide rows of a cross join: a run reads one page of them.
            "SELECT t1.description AS d1, t2.description AS d2, t3.description AS d3 FROM transactions t1,"
                    + " transactions t2, transactions t3",
            // Work without a growing value: stopped by the statement timeout, its memory flat.
            "SELECT count(*) AS n FROM transactions t1, transactions t2, transactions t3",
            "SELECT max(t1.description || t2.description || t3.description) AS m FROM transactions t1,"
                    + " transactions t2, transactions t3",
            "SELECT t1.description || t2.description AS d FROM transactions t1, transactions t2 ORDER BY 1",
            // A set operation over a cross join: sorted, not hashed in memory (the run's planner settings).
            "SELECT t1.description || t2.description AS d FROM transactions t1, transactions t2"
                    + " WHERE t1.amount + 0 = t1.amount AND t2.amount * 1 = t2.amount"
                    + " INTERSECT SELECT description FROM transactions"})
    void aStatementThatRunsStaysWithinTheBound(String statement) throws Exception {
        long growth = growthMib(statement, "1s");
        System.out.printf("PlanMemoryTest: %d MiB peak growth: %s%n", growth, statement);
        assertThat(growth).as(statement).isLessThan(BOUND_MIB);
    }

    /** The real questions among them run through the product and answer. */
    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT category, string_agg(description, ', ') AS notes FROM transactions GROUP BY category",
            "SELECT w.name, array_agg(t.amount ORDER BY t.amount) AS amounts FROM wallets w"
                    + " JOIN transactions t ON t.wallet_id = w.id GROUP BY w.name"})
    void aRealQuestionAnswers(String statement) {
        String turnId = drafted("c-answers", statement);

        PlanModeTest.run(fixtures, "c-answers", turnId, "").statusCode(200);
    }

    /** The instrument sees what it is for: the statement, uncapped, grows the backend past the bound. */
    @org.junit.jupiter.api.Test
    void theMeasurementSeesAnUncappedAggregatesMemory() throws Exception {
        long growth = growthMib(CROSS_JOINED.replace("string_agg(", "pg_catalog.string_agg("), "2s");
        System.out.printf("PlanMemoryTest: %d MiB peak growth in 2 s: %s%n", growth, CROSS_JOINED);
        assertThat(growth).isGreaterThan(BOUND_MIB);
    }

    /**
     * Runs {@code statement} on a fresh backend of the plan role, in alice's tenant under her reader grant, with a
     * run's work_mem (4 MB, the default) and the statement timeout {@code timeout}; answers how far its peak resident
     * memory rose, in MiB.
     */
    private long growthMib(String statement, String timeout) throws Exception {
        String secret = grants.secretFor(alice).await().atMost(Duration.ofSeconds(10));
        try (Connection plan = TestProperties.connectionAs(LocalPostgres.PLAN_ROLE, LocalPostgres.PLAN_PASSWORD);
                Statement sql = plan.createStatement()) {
            plan.setAutoCommit(false);
            sql.execute(PlanSessions.settings(true, Duration.parse("PT" + timeout.toUpperCase()), "4MB"));
            try (var name = plan.prepareStatement("SELECT use_reader_grant(?)")) {
                name.setString(1, secret);
                name.execute();
            }
            long pid;
            try (ResultSet rows = sql.executeQuery("SELECT pg_backend_pid()")) {
                rows.next();
                pid = rows.getLong(1);
            }
            long before = peakKib(pid);
            try (ResultSet rows = sql.executeQuery("SELECT * FROM (" + statement + ") s LIMIT 201")) {
                while (rows.next()) {
                    // Read the page as a run reads it.
                }
            } catch (SQLException e) {
                assertThat(e.getSQLState()).as("only the timeout, the spill limit or the cap may stop it")
                        .isIn("57014", "53400", "54000");
            }
            long after = peakKib(pid);
            plan.rollback();
            return (after - before) / 1024;
        }
    }

    /** The process's peak resident set size ({@code VmHWM}), in KiB. */
    private static long peakKib(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        throw new IllegalStateException("no VmHWM for process " + pid);
    }
}
