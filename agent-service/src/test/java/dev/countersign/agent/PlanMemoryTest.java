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
import org.junit.jupiter.params.provider.ValueSource;

import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.evidence.ReaderGrants;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.testing.TestProperties;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 40, the measurement: a plan statement's cost in the database's memory, over a tenant of 3,000 transactions (a
 * small business's year, analysed). The memory-shaped statements that stay bounded today (sorts and hashes under
 * {@code work_mem}, spills under {@code temp_file_limit}, a value built per row from a few columns) run through the
 * product (a plan turn drafts it, the person runs it) and, for the measurement, on a fresh backend of the plan role
 * with a run's settings and the person's reader grant (the plan pool's backends carry earlier peaks): the backend's
 * peak resident memory ({@code VmHWM}, from the operating system) grows by less than {@link #BOUND_MIB} MiB.
 * <p>
 * The instrument is checked to see what it is meant to see: the issue's own statement, a {@code string_agg} over a
 * three-way cross join, grows the backend past the bound within two seconds. Plan mode does not refuse that statement
 * yet (docs/plan-mode.md, Limits; ADR 6 records the bound that was tried and why it was not kept).
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

    private String drafted(String conversation, String statement) {
        ScriptedModel.use(script(ModelReply.text("```postgresql\n" + statement + "\n```\nAs asked.")));
        return PlanModeTest.plan(fixtures, conversation, "as asked").statusCode(200).extract().jsonPath()
                .getString("turnId");
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
            "SELECT t1.description || t2.description AS d FROM transactions t1, transactions t2 ORDER BY 1"})
    void aStatementThatRunsStaysWithinTheBound(String statement) throws Exception {
        String turnId = drafted("c-runs", statement);
        int status = PlanModeTest.run(fixtures, "c-runs", turnId, "").extract().statusCode();
        assertThat(status).as("answered, or stopped by the statement timeout").isIn(200, 400);

        long growth = growthMib(statement, "1s");
        System.out.printf("PlanMemoryTest: %d MiB peak growth: %s%n", growth, statement);
        assertThat(growth).as(statement).isLessThan(BOUND_MIB);
    }

    /** The instrument sees what it is for: the statement grows the backend past the bound. */
    @org.junit.jupiter.api.Test
    void theMeasurementSeesAGrowingAggregatesMemory() throws Exception {
        long growth = growthMib(CROSS_JOINED, "2s");
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
            try (var name = plan.prepareStatement("SELECT use_reader_grant(?)")) {
                name.setString(1, secret);
                name.execute();
            }
            sql.execute("SET LOCAL statement_timeout = '" + timeout + "'; SET LOCAL work_mem = '4MB'");
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
                // 54000: a value reached PostgreSQL's 1 GB limit first (an idle machine builds the cross-joined
                // string_agg that far within the 2 s the measurement allows).
                assertThat(e.getSQLState()).as("only the statement timeout or a database limit may stop it")
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
