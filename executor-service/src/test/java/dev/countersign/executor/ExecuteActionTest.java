package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.testing.TopicRecords;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.kind.ExecutionRefused;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The gate's execute_action (R__execute_action.sql), around the application, with kind functions planted for the case:
 * a write refused after it wrote keeps nothing of it and leaves the action confirmed with no event (or, sent with its
 * COMMIT, fails the transaction); a write answering nothing is a fault; a row stored otherwise than the outcome event
 * was built for fails the call.
 */
@QuarkusTest
@ExecutorTestResources
class ExecuteActionTest {

    private static final String ARGUMENTS = "(p_action uuid, p_tenant text, p_requester text, p_params jsonb,"
            + " p_target_version bigint)";
    private static final String HEADER = " RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp"
            + " AS $$ BEGIN ";

    private final TopicRecords kafka = TopicRecords.fromTestProperties();

    @Inject
    TenantTransactions transactions;

    @Inject
    ActionRepository actions;

    @BeforeAll
    static void plantKindFunctions() throws SQLException {
        try (var owner = Db.owner(); var sql = owner.createStatement()) {
            sql.execute("CREATE FUNCTION fixture_half_write" + ARGUMENTS + HEADER
                    + "UPDATE wallets SET name = 'half written' WHERE id = (p_params ->> 'walletId')::uuid;"
                    + " PERFORM kind_refuse('currency_mismatch', 'refused after writing'); RETURN '{}'; END $$");
            sql.execute("CREATE FUNCTION fixture_nothing_write" + ARGUMENTS + HEADER + "RETURN NULL; END $$");
            sql.execute("CREATE FUNCTION fixture_moved_write" + ARGUMENTS + HEADER
                    + "PERFORM kind_target_moved(); RETURN '{}'; END $$");
            sql.execute("CREATE FUNCTION fixture_ok_write" + ARGUMENTS + HEADER + "RETURN '{\"ok\": true}'; END $$");
            sql.execute("GRANT EXECUTE ON FUNCTION fixture_half_write(uuid, text, text, jsonb, bigint),"
                    + " fixture_ok_write(uuid, text, text, jsonb, bigint),"
                    + " fixture_nothing_write(uuid, text, text, jsonb, bigint),"
                    + " fixture_moved_write(uuid, text, text, jsonb, bigint) TO " + LocalPostgres.EXECUTOR_ROLE);
        }
    }

    @AfterAll
    static void removeThem() throws SQLException {
        try (var owner = Db.owner(); var sql = owner.createStatement()) {
            // DatabaseRulesMigrationTest compares functions with the migrations: leave none behind.
            sql.execute("DROP FUNCTION fixture_half_write(uuid, text, text, jsonb, bigint),"
                    + " fixture_ok_write(uuid, text, text, jsonb, bigint),"
                    + " fixture_nothing_write(uuid, text, text, jsonb, bigint),"
                    + " fixture_moved_write(uuid, text, text, jsonb, bigint)");
        }
    }

    @Test
    void aWriteRefusedAfterItWroteKeepsNothingAndLeavesTheActionConfirmed() throws Exception {
        TestTenant tenant = TestTenant.withCheckingWallet();
        ProposalMother proposal = ProposalMother.staged(kafka, tenant, "12.50");
        String name = walletName(tenant);
        UUID event = UUID.randomUUID();
        try (var app = confirmed(tenant, proposal);
                var call = app.prepareStatement("SELECT refusal, reason, moved, (stored).status FROM execute_action(?,"
                        + " 'fixture_half_write(uuid,text,text,jsonb,bigint)'::regprocedure, ?::jsonb,"
                        + " 'ActionExecuted', 'countersign.actions.outcomes', false, '{}'::jsonb, false)")) {
            call.setObject(1, proposal.actionId);
            call.setString(2, "{\"eventId\": \"" + event + "\", \"result\": null}");
            try (var rows = call.executeQuery()) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString("refusal")).isEqualTo("currency_mismatch");
                assertThat(rows.getString("reason")).isEqualTo("refused after writing");
                assertThat(rows.getBoolean("moved")).isFalse();
                assertThat(rows.getString("status")).as("nothing stored").isNull();
            }
            assertThat(Db.text(app, "SELECT name FROM wallets WHERE id = ?", tenant.wallet()))
                    .as("the write before the refusal, rolled back with it").isEqualTo(name);
            assertThat(Db.text(app, "SELECT status FROM actions WHERE id = ?", proposal.actionId))
                    .isEqualTo("confirmed");
            app.commit();
        }
        assertThat(Db.status(proposal.actionId)).as("committed, still for a person's failure record")
                .isEqualTo("confirmed");
        try (var owner = Db.owner()) {
            assertThat(Db.count(owner, "SELECT count(*) FROM outbox WHERE event_id = ?", event)).isZero();
            assertThat(Db.text(owner, "SELECT name FROM wallets WHERE id = ?", tenant.wallet())).isEqualTo(name);
        }
    }

    @Test
    void aWriteThatAnswersNothingIsAFaultAndNothingIsExecuted() throws Exception {
        TestTenant tenant = TestTenant.withCheckingWallet();
        ProposalMother proposal = ProposalMother.staged(kafka, tenant, "12.50");
        try (var app = confirmed(tenant, proposal)) {
            assertThatThrownBy(() -> call(app, proposal, "fixture_nothing_write")).isInstanceOfSatisfying(
                    SQLException.class, fault -> assertThat(fault.getSQLState()).isEqualTo("CS003"));
            app.rollback();
        }
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
    }

    @Test
    void aGuardedWriteThatMatchedNoRowIsAnsweredAsMovedAndAnUnconfirmedActionIsNotWritten() throws Exception {
        TestTenant tenant = TestTenant.withCheckingWallet();
        ProposalMother proposal = ProposalMother.staged(kafka, tenant, "12.50");
        try (var app = confirmed(tenant, proposal); var rows = call(app, proposal, "fixture_moved_write")) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getString("refusal")).isEqualTo("target_changed");
            assertThat(rows.getBoolean("moved")).isTrue();
            app.rollback();
        }
        try (var app = Db.application()) {
            app.setAutoCommit(false);
            Db.enterTenant(app, tenant.id());
            assertThatThrownBy(() -> call(app, proposal, "fixture_half_write")).as("still proposed")
                    .isInstanceOfSatisfying(SQLException.class,
                            refused -> assertThat(refused.getSQLState()).isEqualTo("55000"));
            app.rollback();
        }
        assertThat(walletName(tenant)).as("nothing written for the unconfirmed action").isNotEqualTo("half written");
    }

    private static ResultSet call(Connection app, ProposalMother proposal, String function)
            throws SQLException {
        var call = app.prepareStatement("SELECT refusal, reason, moved FROM execute_action(?, ?::regprocedure,"
                + " '{}'::jsonb, 'ActionExecuted', 'countersign.actions.outcomes', false, '{}'::jsonb, false)");
        call.setObject(1, proposal.actionId);
        call.setString(2, function + "(uuid,text,text,jsonb,bigint)");
        return call.executeQuery();
    }

    /**
     * execute_action with a write that succeeds, the event's row expected as {@code expected} (the confirmed row as
     * JSON, changed by {@code change}) and whether a refusal aborts.
     */
    private static ResultSet callExpecting(Connection app, ProposalMother proposal, String function, String change,
            boolean refusalAborts) throws SQLException {
        var call = app.prepareStatement("SELECT (stored).status, (stored).result::text AS result FROM execute_action(?,"
                + " ?::regprocedure, '{\"eventId\": \"" + UUID.randomUUID() + "\"}'::jsonb, 'ActionExecuted',"
                + " 'countersign.actions.outcomes', false, (SELECT to_jsonb(a) - 'version'"
                + " || jsonb_build_object('status', 'executed', 'executed_at', a.confirmed_at) || ?::jsonb"
                + " FROM actions a WHERE a.id = ?), ?)");
        call.setObject(1, proposal.actionId);
        call.setString(2, function + "(uuid,text,text,jsonb,bigint)");
        call.setString(3, change);
        call.setObject(4, proposal.actionId);
        call.setBoolean(5, refusalAborts);
        return call.executeQuery();
    }

    @Test
    void theRowStoredMustBeTheOneTheEventWasBuiltFor() throws Exception {
        TestTenant tenant = TestTenant.withCheckingWallet();
        ProposalMother proposal = ProposalMother.staged(kafka, tenant, "12.50");
        try (var app = confirmed(tenant, proposal)) {
            try (var rows = callExpecting(app, proposal, "fixture_ok_write", "{}", false)) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString("status")).isEqualTo("executed");
                assertThat(rows.getString("result")).isEqualTo("{\"ok\": true}");
            }
            app.rollback();
        }
        for (String otherwise : new String[]{"{\"summary\": \"another summary\"}",
                "{\"executed_at\": \"2001-01-01T00:00:00Z\"}", "{\"confirmed_by\": \"mallory\"}",
                "{\"params\": {\"amount\": \"13.00\"}}", "{\"target_owner\": null, \"requested_by\": \"x\"}"}) {
            try (var app = confirmed(tenant, proposal)) {
                assertThatThrownBy(() -> callExpecting(app, proposal, "fixture_ok_write", otherwise, false))
                        .as(otherwise).isInstanceOfSatisfying(SQLException.class,
                                refused -> assertThat(refused.getSQLState()).isEqualTo("CS004"));
                app.rollback();
            }
        }
        assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
    }

    /**
     * The executor's expected row (ActionRepository.columnsOf) names columns of actions, every one but those stated,
     * and a row read by the executor, written back that way, is the stored row: a key that named no column would go
     * uncompared, and a value the database read otherwise (a time, a number) would fail every confirm.
     */
    @Test
    void theExpectedRowNamesTheColumnsOfActionsAndAStoredRowReadsBackAsItself() throws Exception {
        TestTenant tenant = TestTenant.withCheckingWallet();
        ProposalMother proposal = ProposalMother.staged(kafka, tenant, "12.50");
        ActionRow row = transactions.read(tenant.id(), sql -> actions.find(sql, proposal.actionId, tenant.id()))
                .await().atMost(Duration.ofSeconds(10));
        ObjectNode columns = ActionRepository.columnsOf(row);
        Set<String> named = new HashSet<>();
        columns.fieldNames().forEachRemaining(named::add);
        Set<String> all = new HashSet<>();
        try (var owner = Db.owner();
                var read = owner.prepareStatement("SELECT column_name FROM"
                        + " information_schema.columns WHERE table_schema = 'public' AND table_name = 'actions'")) {
            try (var rows = read.executeQuery()) {
                while (rows.next()) {
                    all.add(rows.getString(1));
                }
            }
            assertThat(all).containsAll(named);
            all.removeAll(named);
            assertThat(all).as("the columns not compared: the result (the write's answer), and what the executor's"
                    + " row does not hold").containsExactlyInAnyOrder("result", "version", "token_hash",
                            "context_clean",
                            "call_started_at");
            assertThat(Db.text(owner, "SELECT (jsonb_populate_record(a, ?::jsonb) IS NOT DISTINCT FROM a)::text"
                    + " FROM actions a WHERE a.id = ?", columns.toString(), proposal.actionId)).isEqualTo("true");
        }
    }

    @Test
    void aRefusalOfAWriteSentWithItsCommitFailsTheStatementAndKeepsNothing() throws Exception {
        TestTenant tenant = TestTenant.withCheckingWallet();
        ProposalMother proposal = ProposalMother.staged(kafka, tenant, "12.50");
        String name = walletName(tenant);
        for (String[] kindAndState : new String[][]{{"fixture_half_write", "CS001"},
                {"fixture_moved_write", "CS002"}}) {
            try (var app = confirmed(tenant, proposal)) {
                assertThatThrownBy(() -> callExpecting(app, proposal, kindAndState[0], "{}", true))
                        .isInstanceOfSatisfying(SQLException.class,
                                refused -> assertThat(refused.getSQLState()).isEqualTo(kindAndState[1]));
                // What the COMMIT sent behind it meets: an aborted transaction, which it ends by rolling back.
                app.commit();
            }
        }
        assertThat(Db.status(proposal.actionId)).as("not even confirmed").isEqualTo("proposed");
        assertThat(walletName(tenant)).isEqualTo(name);
    }

    /** A refusal code a kind's SQL gives that is no error code is a fault of the kind: the transaction fails. */
    @Test
    void aRefusalCodeThatIsNoErrorCodeIsAFaultNotARefusal() {
        assertThat(ExecutionRefused.declared("currency_mismatch", "r").code()).isEqualTo(ErrorCode.CURRENCY_MISMATCH);
        assertThatThrownBy(() -> ExecutionRefused.declared("no_such_code", "r"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no_such_code");
    }

    private static String walletName(TestTenant tenant) throws SQLException {
        try (var owner = Db.owner()) {
            return Db.text(owner, "SELECT name FROM wallets WHERE id = ?", tenant.wallet());
        }
    }

    /** The application role in the tenant's open transaction, the proposal confirmed in it as the executor does. */
    private static Connection confirmed(TestTenant tenant, ProposalMother proposal) throws SQLException {
        Connection app = Db.application();
        app.setAutoCommit(false);
        Db.enterTenant(app, tenant.id());
        try (var confirm = app.prepareStatement("UPDATE actions SET status = 'confirmed', confirmed_by = 'alice',"
                + " confirmed_at = now(), version = version + 1 WHERE id = ? AND status = 'proposed'")) {
            confirm.setObject(1, proposal.actionId);
            assertThat(confirm.executeUpdate()).isOne();
        }
        return app;
    }
}
