package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.testing.KafkaTestClient;
import dev.countersign.executor.kind.ExecutionRefused;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The gate's execute_action (R__execute_action.sql), around the application, with kind functions planted for the case:
 * a write refused after it wrote keeps nothing of it and leaves the action confirmed with no event; a write answering
 * nothing is executed with a JSON null result, in the row and the event alike.
 */
@QuarkusTest
@ExecutorTestResources
class ExecuteActionTest {

    private static final String ARGUMENTS = "(p_action uuid, p_tenant text, p_requester text, p_params jsonb,"
            + " p_target_version bigint)";
    private static final String HEADER = " RETURNS jsonb LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp"
            + " AS $$ BEGIN ";

    private final KafkaTestClient kafka = KafkaTestClient.fromTestProperties();

    @BeforeAll
    static void plantKindFunctions() throws SQLException {
        try (var owner = Db.owner(); var sql = owner.createStatement()) {
            sql.execute("CREATE FUNCTION fixture_half_write" + ARGUMENTS + HEADER
                    + "UPDATE wallets SET name = 'half written' WHERE id = (p_params ->> 'walletId')::uuid;"
                    + " PERFORM kind_refuse('currency_mismatch', 'refused after writing'); RETURN '{}'; END $$");
            sql.execute("CREATE FUNCTION fixture_nothing_write" + ARGUMENTS + HEADER + "RETURN NULL; END $$");
            sql.execute("CREATE FUNCTION fixture_moved_write" + ARGUMENTS + HEADER
                    + "PERFORM kind_target_moved(); RETURN '{}'; END $$");
            sql.execute("GRANT EXECUTE ON FUNCTION fixture_half_write(uuid, text, text, jsonb, bigint),"
                    + " fixture_nothing_write(uuid, text, text, jsonb, bigint),"
                    + " fixture_moved_write(uuid, text, text, jsonb, bigint) TO " + LocalPostgres.EXECUTOR_ROLE);
        }
    }

    @AfterAll
    static void removeThem() throws SQLException {
        try (var owner = Db.owner(); var sql = owner.createStatement()) {
            // DatabaseRulesMigrationTest compares functions with the migrations: leave none behind.
            sql.execute("DROP FUNCTION fixture_half_write(uuid, text, text, jsonb, bigint),"
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
                        + " 'ActionExecuted', 'countersign.actions.outcomes', false)")) {
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
                + " '{}'::jsonb, 'ActionExecuted', 'countersign.actions.outcomes', false)");
        call.setObject(1, proposal.actionId);
        call.setString(2, function + "(uuid,text,text,jsonb,bigint)");
        return call.executeQuery();
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
