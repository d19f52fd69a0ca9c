package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/**
 * What the agent's own database credentials reach, around the application: a compromised agent process holds the reader
 * role's and the plan role's passwords, and whatever it does with a session, it reads no tenant for which it holds no
 * live reader grant, and with a grant only that grant's tenant and, of the per-person tables, that person's rows
 * (R__current_tenant.sql, R__reader_grants.sql). Each means a session has of naming a tenant is tried: SET, SET LOCAL,
 * set_config, RESET, a connect-time option, a function of its own, a guessed, revoked or expired grant.
 */
@QuarkusTest
@ExecutorTestResources
class AgentCredentialsTest {

    private static final String NO_GRANT = "CS401";

    private final TopicRecords kafka = TopicRecords.fromTestProperties();

    private String mine;
    private String theirs;

    @BeforeEach
    void twoTenantsWithPeopleAndConversations() throws Exception {
        mine = "t-" + UUID.randomUUID();
        theirs = "t-" + UUID.randomUUID();
        try (var owner = Db.owner()) {
            for (String tenant : List.of(mine, theirs)) {
                UUID wallet = DemoData.createWallet(owner, tenant, "alice", "Checking", "EUR");
                owner.createStatement().executeUpdate("INSERT INTO transactions (id, tenant_id, wallet_id, amount,"
                        + " category, occurred_on) VALUES (gen_random_uuid(), '" + tenant + "', '" + wallet
                        + "', 4.20, 'groceries', current_date)");
                for (String person : List.of("alice", "bob")) {
                    owner.createStatement().executeUpdate("INSERT INTO conversation_events (event_id, tenant_id,"
                            + " user_id, conversation_id, type, occurred_at, payload) VALUES (gen_random_uuid(), '"
                            + tenant + "', '" + person + "', 'c-1', 'TurnRecorded', now(), '{}')");
                    owner.createStatement().executeUpdate("INSERT INTO training_plans (id, tenant_id, user_id, name,"
                            + " starts_on, schedule) VALUES (gen_random_uuid(), '" + tenant + "', '" + person
                            + "', 'Base', current_date, 'Mon: run')");
                }
            }
        }
    }

    private static Connection reader() throws SQLException {
        return Db.reader();
    }

    private static Connection plan() throws SQLException {
        return TestProperties.connectionAs(LocalPostgres.PLAN_ROLE, LocalPostgres.PLAN_PASSWORD);
    }

    /** Both of the agent's roles: each is tried by every means below. */
    private interface Login {

        Connection open() throws SQLException;
    }

    private static final List<Login> AGENT_ROLES = List.of(AgentCredentialsTest::reader, AgentCredentialsTest::plan);

    /** The statements run, then a read of the other tenant is refused for want of a grant (CS401). */
    private void readsNothingOfTheirs(Connection sql, String... naming) {
        refused(sql, NO_GRANT, naming);
    }

    private void refused(Connection sql, String sqlState, String... naming) {
        assertThatThrownBy(() -> {
            for (String statement : naming) {
                sql.createStatement().execute(statement);
            }
            Db.count(sql, "SELECT count(*) FROM wallets WHERE tenant_id = ?", theirs);
        }).as(String.join("; ", naming)).isInstanceOfSatisfying(SQLException.class,
                e -> assertThat(e.getSQLState()).isEqualTo(sqlState));
    }

    @Test
    void noSettingNamesATenantForTheAgentsRoles() throws Exception {
        for (Login login : AGENT_ROLES) {
            boolean plan = login == AGENT_ROLES.get(1);
            try (var sql = login.open()) {
                readsNothingOfTheirs(sql, "SET countersign.tenant_id = '" + theirs + "'");
                readsNothingOfTheirs(sql, "RESET countersign.tenant_id");
                readsNothingOfTheirs(sql, "RESET ALL");
                sql.setAutoCommit(false);
                readsNothingOfTheirs(sql, "SET LOCAL countersign.tenant_id = '" + theirs + "'");
                sql.rollback();
                // The plan role may not even execute set_config (plan-role.sql); the reader may, and reads nothing.
                refused(sql, plan ? "42501" : NO_GRANT,
                        "SELECT set_config('countersign.tenant_id', '" + theirs + "', true)");
                sql.rollback();
                refused(sql, plan ? "42501" : NO_GRANT,
                        "SELECT set_config('countersign.tenant_id', '" + theirs + "', false)");
                sql.rollback();
            }
        }
    }

    @Test
    void aTenantNamedAtConnectTimeIsNoGrantEither() throws Exception {
        for (String[] role : List.of(new String[]{LocalPostgres.READER_ROLE, LocalPostgres.READER_PASSWORD},
                new String[]{LocalPostgres.PLAN_ROLE, LocalPostgres.PLAN_PASSWORD})) {
            Properties login = new Properties();
            login.setProperty("user", role[0]);
            login.setProperty("password", role[1]);
            login.setProperty("options", "-c countersign.tenant_id=" + theirs);
            try (var sql = DriverManager.getConnection(System.getProperty(TestProperties.JDBC_URL), login)) {
                readsNothingOfTheirs(sql);
            }
        }
    }

    @Test
    void aFunctionOfItsOwnCannotNameATenantEither() throws Exception {
        try (var sql = plan()) {
            // The plan role may create temporary objects: a function that names the tenant, then reads.
            sql.createStatement().execute("CREATE FUNCTION pg_temp.theirs(t text) RETURNS bigint LANGUAGE plpgsql AS"
                    + " $$ BEGIN EXECUTE format('SET countersign.tenant_id = %L', t);"
                    + " RETURN (SELECT count(*) FROM wallets); END $$");
            assertThatThrownBy(() -> Db.count(sql, "SELECT pg_temp.theirs(?)", theirs))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo(NO_GRANT));
        }
        try (var sql = reader()) {
            // The executor's SECURITY DEFINER functions the reader may call decide by the grant, not the setting.
            sql.createStatement().execute("SET countersign.tenant_id = '" + theirs + "'");
            assertThatThrownBy(() -> Db.count(sql, "SELECT count(*) FROM plan_statistics()"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo(NO_GRANT));
        }
    }

    @Test
    void aGuessedRevokedOrExpiredGrantReadsNothing() throws Exception {
        String revoked = Db.grant(theirs, "alice");
        String expired = Db.grant(theirs, "alice");
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate("UPDATE reader_grants SET expires_at = now() - interval '1 second'"
                    + " WHERE secret_hash = sha256(convert_to('" + expired + "', 'UTF8'))");
        }
        for (Login login : AGENT_ROLES) {
            try (var sql = login.open()) {
                sql.setAutoCommit(false);
                Db.useGrant(sql, revoked);
                assertThat(Db.count(sql, "SELECT count(*) FROM wallets WHERE tenant_id = ?", theirs)).isOne();
                sql.rollback();
            }
        }
        try (var sql = reader()) {
            sql.setAutoCommit(false);
            Db.useGrant(sql, revoked);
            try (var revoke = sql.createStatement().executeQuery("SELECT revoke_reader_grant()")) {
                assertThat(revoke.next() && revoke.getBoolean(1)).isTrue();
            }
            sql.commit();
        }
        for (Login login : AGENT_ROLES) {
            try (var sql = login.open()) {
                for (String secret : List.of(revoked, expired, revoked.substring(1) + "0", "")) {
                    sql.setAutoCommit(false);
                    Db.useGrant(sql, secret);
                    readsNothingOfTheirs(sql);
                    sql.rollback();
                }
            }
        }
    }

    @Test
    void aGrantShowsItsTenantOnlyWhateverTheSessionSaysBesides() throws Exception {
        for (Login login : AGENT_ROLES) {
            try (var sql = login.open()) {
                sql.setAutoCommit(false);
                Db.enterAsReader(sql, mine, "alice");
                sql.createStatement().execute("SET LOCAL countersign.tenant_id = '" + theirs + "'");
                assertThat(Db.count(sql, "SELECT count(*) FROM wallets WHERE tenant_id = ?", theirs)).isZero();
                assertThat(Db.count(sql, "SELECT count(*) FROM transactions WHERE tenant_id = ?", theirs)).isZero();
                assertThat(Db.count(sql, "SELECT count(*) FROM wallets WHERE tenant_id = ?", mine)).isOne();
                sql.rollback();
            }
        }
    }

    @Test
    void aGrantThatEndsInAnOpenTransactionReadsNothingFromItsNextStatement() throws Exception {
        String grant = Db.grant(mine, "alice");
        try (var sql = reader()) {
            sql.setAutoCommit(false);
            Db.useGrant(sql, grant);
            assertThat(Db.count(sql, "SELECT count(*) FROM wallets")).isOne();
            try (var owner = Db.owner()) {
                owner.createStatement().executeUpdate("UPDATE reader_grants SET expires_at = now()"
                        + " WHERE secret_hash = sha256(convert_to('" + grant + "', 'UTF8'))");
            }
            assertThatThrownBy(() -> Db.count(sql, "SELECT count(*) FROM wallets"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo(NO_GRANT));
            sql.rollback();
        }
    }

    @Test
    void aGrantShowsItsPersonsActionsConversationsAndPlansNotAColleagues() throws Exception {
        UUID wallet;
        try (var owner = Db.owner()) {
            wallet = DemoData.createWallet(owner, mine, "alice", "Travel", "EUR");
        }
        ProposalMother.staged(kafka, mine, wallet, "1.00");
        try (var sql = reader()) {
            sql.setAutoCommit(false);
            Db.enterAsReader(sql, mine, "bob");
            assertThat(Db.count(sql, "SELECT count(*) FROM actions")).as("alice's action, for bob").isZero();
            sql.rollback();
            Db.enterAsReader(sql, mine, "alice");
            assertThat(Db.count(sql, "SELECT count(*) FROM actions")).as("alice's action, for alice").isOne();
            for (String table : List.of("conversation_events", "training_plans")) {
                assertThat(Db.count(sql, "SELECT count(*) FROM " + table + " WHERE user_id = 'bob'")).as(table)
                        .isZero();
                // Alice's own: the fixture's, and her action's staging outcome in her conversation.
                assertThat(Db.count(sql, "SELECT count(*) FROM " + table + " WHERE user_id = 'alice'")).as(table)
                        .isPositive();
            }
            sql.rollback();
        }
    }

    @Test
    void noGrantIsReadableByTheAgentsRolesNorMintedByThem() throws Exception {
        Db.grant(mine, "alice");
        for (Login login : AGENT_ROLES) {
            try (var sql = login.open()) {
                for (String statement : List.of("SELECT count(*) FROM reader_grants",
                        "SELECT open_reader_grant('" + theirs + "', 'alice', now() + interval '1 minute')")) {
                    assertThatThrownBy(() -> sql.createStatement().executeQuery(statement)).as(statement)
                            .isInstanceOfSatisfying(SQLException.class,
                                    e -> assertThat(e.getSQLState()).isEqualTo("42501"));
                }
            }
        }
    }

    /**
     * The rule functions resolve names with the caller's search_path when inlined (they name their schemas): a role
     * that could create objects could still shadow an operator. The agent's roles can create in no schema here.
     */
    @Test
    void theAgentsRolesCanCreateInNoSchema() throws Exception {
        try (var owner = Db.owner();
                var query = owner.prepareStatement("SELECT count(*) FROM pg_namespace n"
                        + " WHERE has_schema_privilege(?, n.oid, 'CREATE')")) {
            for (String role : List.of(LocalPostgres.READER_ROLE, LocalPostgres.PLAN_ROLE)) {
                query.setString(1, role);
                try (var rows = query.executeQuery()) {
                    rows.next();
                    assertThat(rows.getInt(1)).as(role).isZero();
                }
            }
        }
    }

    @Test
    void theExecutorsRoleStillNamesItsTenantWithTheSetting() throws Exception {
        try (var app = Db.application()) {
            app.setAutoCommit(false);
            Db.enterTenant(app, theirs);
            assertThat(Db.count(app, "SELECT count(*) FROM conversation_events")).isEqualTo(2);
            app.rollback();
        }
    }
}
