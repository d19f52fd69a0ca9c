package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.executor.action.ActionTransitions;
import io.quarkus.test.junit.QuarkusTest;

/** Invariants the database keeps on its own: every test here goes around the application with raw SQL. */
@QuarkusTest
@ExecutorTestResources
class DatabaseInvariantsTest {

    private static UUID insertAction(Connection sql, String tenant) throws SQLException {
        return insertAction(sql, tenant, ShippedKinds.CREATE_TRANSACTION);
    }

    private static UUID insertAction(Connection sql, String tenant, String kind) throws SQLException {
        UUID id = UUID.randomUUID();
        try (var insert = sql.prepareStatement("""
                INSERT INTO actions (id, tenant_id, requested_by, kind, tier, status, params, params_hash, token_hash,
                                     summary, proposed_at, expires_at)
                VALUES (?, ?, 'alice', ?, 'low', 'proposed', '{"amount":"1.00"}',
                        repeat('a', 64), repeat('b', 64), 'test', now(), now() + interval '1 hour')""")) {
            insert.setObject(1, id);
            insert.setString(2, tenant);
            insert.setString(3, kind);
            insert.executeUpdate();
        }
        return id;
    }

    /** Moves an action along legal steps to {@code status}, with raw SQL. */
    private static UUID actionIn(Connection sql, ActionStatus status) throws SQLException {
        UUID id = insertAction(sql, "t-" + UUID.randomUUID());
        var path = switch (status) {
            case PROPOSED -> new String[]{};
            case CONFIRMED -> new String[]{"confirmed"};
            case EXECUTED -> new String[]{"confirmed", "executed"};
            case UNDONE -> new String[]{"confirmed", "executed", "undone"};
            case CANCELLED -> new String[]{"cancelled"};
            case EXPIRED -> new String[]{"expired"};
            case FAILED -> new String[]{"confirmed", "failed"};
            case EXECUTING -> new String[]{"confirmed", "executing"};
            case NEEDS_REVIEW -> new String[]{"confirmed", "executing", "needs_review"};
            case SUPERSEDED -> new String[]{"superseded"};
        };
        for (String step : path) {
            setStatus(sql, id, step);
        }
        return id;
    }

    private static void setStatus(Connection sql, UUID id, String status) throws SQLException {
        if ("superseded".equals(status)) {
            supersede(sql, id);
            return;
        }
        // Undoing must name who undid it (R__actions_decision_marks.sql) and a claim when its call started
        // (R__actions_external_calls.sql); other moves leave those alone.
        try (var update = sql.prepareStatement("UPDATE actions SET status = ?,"
                + " undone_by = CASE WHEN ? = 'undone' THEN 'alice' END,"
                + " undone_at = CASE WHEN ? = 'undone' THEN now() END,"
                + " call_started_at = CASE WHEN ? = 'executing' THEN now() ELSE call_started_at END WHERE id = ?")) {
            update.setString(1, status);
            update.setString(2, status);
            update.setString(3, status);
            update.setString(4, status);
            update.setObject(5, id);
            update.executeUpdate();
        }
    }

    /**
     * An edit's move, as ActionEdits makes it: the action superseded naming a successor, and the successor stored
     * naming it, in one transaction (the link is checked when it commits).
     */
    private static void supersede(Connection sql, UUID id) throws SQLException {
        supersede(sql, id, "prior_requesters || requested_by");
    }

    /** As {@link #supersede(Connection, UUID)}, the successor's prior requesters as {@code priorRequesters} says. */
    private static void supersede(Connection sql, UUID id, String priorRequesters) throws SQLException {
        UUID successor = UUID.randomUUID();
        boolean autoCommit = sql.getAutoCommit();
        sql.setAutoCommit(false);
        try (var update = sql.prepareStatement("UPDATE actions SET status = 'superseded', superseded_by = ?"
                + " WHERE id = ?");
                var insert = sql.prepareStatement("""
                        INSERT INTO actions (id, tenant_id, requested_by, kind, tier, status, params, params_hash,
                                             token_hash, summary, proposed_at, expires_at, supersedes,
                                             prior_requesters)
                        SELECT ?, tenant_id, 'bob', kind, tier, 'proposed', params, params_hash, token_hash, summary,
                               now(), now() + interval '1 hour', id, %s
                        FROM actions WHERE id = ?""".formatted(priorRequesters))) {
            update.setObject(1, successor);
            update.setObject(2, id);
            update.executeUpdate();
            insert.setObject(1, successor);
            insert.setObject(2, id);
            insert.executeUpdate();
            sql.commit();
        } catch (SQLException refused) {
            sql.rollback();
            throw refused;
        } finally {
            sql.setAutoCommit(autoCommit);
        }
    }

    /**
     * The database's own checks of an edit (R__action_edits.sql, V38), around the application: a superseded action
     * names its successor, which names it back, in one tenant and of one kind; an edited action is never applied on
     * arrival; what it supersedes never changes.
     */
    @Test
    void anEditsLinksAreCheckedBothWaysAndItIsNeverAppliedOnArrival() throws Exception {
        try (var sql = Db.owner()) {
            UUID lonely = insertAction(sql, "t-" + UUID.randomUUID());
            assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                    "UPDATE actions SET status = 'superseded' WHERE id = '" + lonely + "'"))
                    .isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> sql.createStatement().executeUpdate("UPDATE actions SET status = 'superseded',"
                    + " superseded_by = gen_random_uuid() WHERE id = '" + lonely + "'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("names it back");
            UUID proposed = insertAction(sql, "t-" + UUID.randomUUID());
            assertThatThrownBy(() -> sql.createStatement().executeUpdate("""
                    INSERT INTO actions (id, tenant_id, requested_by, kind, tier, status, params, params_hash,
                                         token_hash, summary, proposed_at, expires_at, supersedes)
                    SELECT gen_random_uuid(), tenant_id, 'bob', kind, tier, 'proposed', params, params_hash,
                           token_hash, summary, now(), now() + interval '1 hour', id
                    FROM actions WHERE id = '%s'""".formatted(proposed))).isInstanceOf(SQLException.class)
                    .hasMessageContaining("which names it");
            assertThat(Db.status(proposed)).isEqualTo("proposed");
            // An edit that leaves out who asked for what it replaces is refused when it commits.
            UUID forgetful = insertAction(sql, "t-" + UUID.randomUUID());
            assertThatThrownBy(() -> supersede(sql, forgetful, "'{}'::text[]")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("counts its requesters");
            assertThat(Db.status(forgetful)).isEqualTo("proposed");

            supersede(sql, proposed);
            UUID successor = UUID.fromString(Db.text(sql, "SELECT id::text FROM actions WHERE supersedes = ?",
                    proposed));
            assertThatThrownBy(() -> sql.createStatement().executeUpdate("UPDATE actions SET status = 'confirmed',"
                    + " confirmed_by = 'countersign/auto-apply', confirmed_at = now(), auto_applied = true"
                    + " WHERE id = '" + successor + "'")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("edited action is never applied automatically");
            assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                    "UPDATE actions SET supersedes = NULL WHERE id = '" + successor + "'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("cannot change");
            assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                    "UPDATE actions SET prior_requesters = '{}' WHERE id = '" + successor + "'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("cannot change");
            assertThatThrownBy(() -> supersede(sql, proposed)).isInstanceOf(SQLException.class);
        }
    }

    @Test
    void theDatabaseAcceptsExactlyTheTransitionsOfTheStateMachine() throws Exception {
        try (var sql = Db.owner()) {
            for (ActionStatus from : ActionStatus.values()) {
                for (ActionStatus to : ActionStatus.values()) {
                    if (from == to) {
                        continue;
                    }
                    UUID id = actionIn(sql, from);
                    boolean accepted;
                    try {
                        setStatus(sql, id, to.wireName());
                        accepted = true;
                    } catch (SQLException refused) {
                        assertThat(refused.getSQLState()).isEqualTo("23514");
                        accepted = false;
                    }
                    assertThat(accepted).as("%s -> %s", from, to).isEqualTo(ActionTransitions.isLegal(from, to));
                }
            }
        }
    }

    @Test
    void anActionCannotBeBornInAnotherStateThanProposed() throws Exception {
        try (var sql = Db.owner()) {
            assertThatThrownBy(() -> sql.createStatement().executeUpdate("""
                    INSERT INTO actions (id, tenant_id, requested_by, kind, tier, status, params, params_hash,
                                         token_hash, summary, proposed_at, expires_at)
                    VALUES (gen_random_uuid(), 't', 'alice', 'ledger.transaction.create', 'low', 'executed', '{}',
                            repeat('a', 64), repeat('b', 64), 'x', now(), now())""")).isInstanceOf(SQLException.class)
                    .hasMessageContaining("born proposed");
        }
    }

    @Test
    void whatWasProposedCannotBeChangedAfterwards() throws Exception {
        try (var sql = Db.owner()) {
            UUID id = actionIn(sql, ActionStatus.CONFIRMED);

            for (String change : new String[]{"params = '{\"amount\":\"10000.00\"}'", "summary = 'other'",
                    "tier = 'high'", "requested_by = 'mallory'", "kind = 'ledger.wallet.rename'",
                    "tenant_id = 'other'", "conversation_id = 'other'", "mcp_client = 'other'"}) {
                assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                        "UPDATE actions SET " + change + " WHERE id = '" + id + "'"))
                        .as(change).isInstanceOf(SQLException.class).hasMessageContaining("cannot change");
            }
        }
    }

    /**
     * Whatever the executor's code does: an action not marked clean is never applied on arrival, even in a tenant that
     * opted its kind in for MCP clients, unless it came through one (R__actions_decision_marks.sql; McpEvidenceTest
     * holds the MCP side).
     */
    @Test
    void noChatProposalThatIsNotMarkedCleanIsAppliedOnArrivalEvenWhereItsKindIsOptedInForMcp() throws Exception {
        try (var sql = Db.owner()) {
            UUID unclean = actionIn(sql, ActionStatus.PROPOSED);
            sql.createStatement().executeUpdate(("INSERT INTO tenant_policies (tenant_id, updated_by,"
                    + " mcp_auto_apply_kinds) SELECT tenant_id, 'test', ARRAY[kind] FROM actions WHERE id = '%s'")
                    .formatted(unclean));

            assertThatThrownBy(() -> sql.createStatement().executeUpdate("UPDATE actions SET status = 'confirmed',"
                    + " confirmed_by = 'countersign/auto-apply', confirmed_at = now(), auto_applied = true"
                    + " WHERE id = '" + unclean + "'"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("only a clean proposal, or an MCP one of an opted-in kind, is applied");
        }
    }

    @Test
    void theDecisionWindowCannotBeExtended() throws Exception {
        try (var sql = Db.owner()) {
            UUID id = actionIn(sql, ActionStatus.PROPOSED);

            assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                    "UPDATE actions SET expires_at = expires_at + interval '1 day' WHERE id = '" + id + "'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("never extended");
            sql.createStatement().executeUpdate(
                    "UPDATE actions SET expires_at = expires_at - interval '1 minute' WHERE id = '" + id + "'");
        }
    }

    @Test
    void theTokenCanOnlyBeReplacedWhileProposed() throws Exception {
        try (var sql = Db.owner()) {
            UUID proposed = actionIn(sql, ActionStatus.PROPOSED);
            UUID confirmed = actionIn(sql, ActionStatus.CONFIRMED);

            sql.createStatement().executeUpdate(
                    "UPDATE actions SET token_hash = repeat('c', 64) WHERE id = '" + proposed + "'");
            assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                    "UPDATE actions SET token_hash = repeat('c', 64) WHERE id = '" + confirmed + "'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("a confirmed action cannot change");
        }
    }

    @Test
    void aFinishedActionCannotBeRewritten() throws Exception {
        try (var sql = Db.owner()) {
            for (ActionStatus finished : new ActionStatus[]{ActionStatus.EXECUTED, ActionStatus.FAILED,
                    ActionStatus.CANCELLED, ActionStatus.EXPIRED}) {
                UUID id = actionIn(sql, finished);

                assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                        "UPDATE actions SET result = '{\"forged\": true}', confirmed_by = 'mallory' WHERE id = '"
                                + id + "'"))
                        .as(finished.wireName()).isInstanceOf(SQLException.class)
                        .hasMessageContaining("cannot change");
            }
        }
    }

    @Test
    void actionsAreNeverDeletedOrTruncated() throws Exception {
        try (var sql = Db.owner()) {
            UUID id = actionIn(sql, ActionStatus.EXECUTED);

            assertThatThrownBy(() -> sql.createStatement().executeUpdate("DELETE FROM actions WHERE id = '" + id + "'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("never deleted");
            // Refused by the history's foreign key before the trigger gets to say so; CASCADE reaches the trigger.
            assertThatThrownBy(() -> sql.createStatement().executeUpdate("TRUNCATE actions"))
                    .isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> sql.createStatement().executeUpdate("TRUNCATE actions CASCADE"))
                    .isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(e.getMessage()).containsAnyOf("never deleted", "append-only"));
        }
    }

    /**
     * The external kinds, as the declarations say and the executor recorded at start, are claimed before they are
     * called: none goes confirmed -> executed in one step, and no role can clear a kind's external flag.
     */
    @Test
    void anExternalKindIsNeverExecutedWithoutAClaimAndStaysExternal() throws Exception {
        try (var sql = Db.owner()) {
            assertThat(Db.text(sql, "SELECT string_agg(kind, ',' ORDER BY kind) FROM action_kinds WHERE external"))
                    .isEqualTo(ActionCatalogue.all().stream().filter(ActionDefinition::isExternal)
                            .map(ActionDefinition::kind).sorted().collect(java.util.stream.Collectors.joining(",")));
            UUID mail = insertAction(sql, "t-" + UUID.randomUUID(), ShippedKinds.SEND_MAIL);
            setStatus(sql, mail, "confirmed");

            assertThatThrownBy(() -> setStatus(sql, mail, "executed"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("claimed (executing) before it is called");
            setStatus(sql, actionIn(sql, ActionStatus.CONFIRMED), "executed"); // a database kind may
            // A call starts only with the claim, and the claim records when.
            UUID ticket = insertAction(sql, "t-" + UUID.randomUUID(), ShippedKinds.CREATE_TICKET);
            setStatus(sql, ticket, "confirmed");
            assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                    "UPDATE actions SET call_started_at = now() WHERE id = '" + ticket + "'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("only an executing action starts a call");
            assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                    "UPDATE actions SET status = 'executing' WHERE id = '" + ticket + "'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("records when its call started");
        }
        try (var app = Db.application()) {
            assertThatThrownBy(() -> app.createStatement()
                    .executeUpdate("UPDATE action_kinds SET external = false WHERE kind = 'ticket.create'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("stays so");
            assertThatThrownBy(() -> app.createStatement().executeUpdate("DELETE FROM action_kinds"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("permission denied");
        }
    }

    @Test
    void aClosedWindowCannotBeConfirmedEvenByHand() throws Exception {
        try (var sql = Db.owner()) {
            UUID id = actionIn(sql, ActionStatus.PROPOSED);
            sql.createStatement().executeUpdate(
                    "UPDATE actions SET expires_at = proposed_at + interval '1 microsecond' WHERE id = '" + id + "'");

            assertThatThrownBy(() -> setStatus(sql, id, "confirmed"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("window has closed");
        }
    }

    @Test
    void decisionsAreRecordedOnlyByTheMovesThatMakeThem() throws Exception {
        try (var sql = Db.owner()) {
            UUID proposed = actionIn(sql, ActionStatus.PROPOSED);
            UUID executed = actionIn(sql, ActionStatus.EXECUTED);

            assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                    "UPDATE actions SET confirmed_by = 'mallory' WHERE id = '" + proposed + "'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("no decision yet");
            assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                    "UPDATE actions SET status = 'undone', undone_by = 'alice', undone_at = now(),"
                            + " result = '{\"forged\": true}' WHERE id = '" + executed
                            + "'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("only executing or failing");
            assertThatThrownBy(() -> sql.createStatement().executeUpdate("""
                    INSERT INTO actions (id, tenant_id, requested_by, kind, tier, status, params, params_hash,
                                         token_hash, summary, proposed_at, expires_at, result)
                    VALUES (gen_random_uuid(), 't', 'alice', 'ledger.transaction.create', 'low', 'proposed', '{}',
                            repeat('a', 64), repeat('b', 64), 'x', now(), now() + interval '1 hour', '{}')"""))
                    .isInstanceOf(SQLException.class).hasMessageContaining("undecided");
        }
    }

    @Test
    void aMoveByHandStillLeavesATraceAndTheTraceCannotBeErased() throws Exception {
        try (var sql = Db.owner()) {
            UUID id = actionIn(sql, ActionStatus.CANCELLED);

            var trail = sql.createStatement().executeQuery("SELECT to_status, actor, channel FROM action_history"
                    + " WHERE action_id = '" + id + "' ORDER BY id");
            assertThat(trail.next()).isTrue();
            assertThat(trail.next()).isTrue();
            assertThat(trail.getString("to_status")).isEqualTo("cancelled");
            assertThat(trail.getString("actor")).isEqualTo("database");
            assertThat(trail.getString("channel")).isEqualTo("sql");
            assertThat(trail.next()).isFalse();
            for (String erase : new String[]{"DELETE FROM action_history WHERE action_id = '" + id + "'",
                    "UPDATE action_history SET actor = 'nobody' WHERE action_id = '" + id + "'",
                    "TRUNCATE action_history"}) {
                assertThatThrownBy(() -> sql.createStatement().executeUpdate(erase)).as(erase)
                        .isInstanceOf(SQLException.class).hasMessageContaining("append-only");
            }
        }
    }

    /**
     * The trail and the idempotency key of a stored action are written once per INSERT statement for all its rows
     * (staging stores a batch in one statement): every row of a multi-row insert by hand gets both. Through the agent
     * channel each row is its requester's move whatever actor the transaction names; through any other, the named
     * actor's (or 'database').
     */
    @Test
    void everyRowOfOneInsertGetsItsTrailAndItsKeyAsItsRequestersMoveThroughTheAgentChannel() throws Exception {
        String tenant = "t-" + UUID.randomUUID();
        UUID alices = UUID.randomUUID();
        UUID bobs = UUID.randomUUID();
        UUID byHand = UUID.randomUUID();
        UUID dans = UUID.randomUUID();
        String insert = """
                INSERT INTO actions (id, tenant_id, requested_by, kind, tier, status, params, params_hash, token_hash,
                                     summary, proposed_at, expires_at)
                SELECT r.id, '%s', r.requester, 'ledger.transaction.create', 'low', 'proposed', '{}', repeat('a', 64),
                       repeat('b', 64), 'x', now(), now() + interval '1 hour'
                FROM (VALUES %s) AS r(id, requester)""";
        try (var sql = Db.owner()) {
            sql.setAutoCommit(false);
            sql.createStatement().execute("SELECT set_config('countersign.channel', 'agent', true),"
                    + " set_config('countersign.actor', 'mallory', true)");
            sql.createStatement().executeUpdate(insert.formatted(tenant,
                    "('" + alices + "'::uuid, 'alice'), ('" + bobs + "'::uuid, 'bob')"));
            // A row the insert skips (its id is taken) gets no second trail entry or key; the others theirs.
            assertThat(sql.createStatement().executeUpdate(insert.formatted(tenant,
                    "('" + alices + "'::uuid, 'alice'), ('" + dans + "'::uuid, 'dan')")
                    + " ON CONFLICT (id) DO NOTHING"))
                    .isEqualTo(1);
            sql.createStatement().executeUpdate(insert.formatted(tenant, "('" + alices + "'::uuid, 'alice')")
                    + " WHERE false");
            sql.commit();
            sql.setAutoCommit(true);
            sql.createStatement().executeUpdate(insert.formatted(tenant, "('" + byHand + "'::uuid, 'carol')"));

            assertThat(trailOf(sql, alices)).isEqualTo("proposed alice agent");
            assertThat(trailOf(sql, bobs)).isEqualTo("proposed bob agent");
            assertThat(trailOf(sql, dans)).isEqualTo("proposed dan agent");
            assertThat(trailOf(sql, byHand)).isEqualTo("proposed database sql");
            assertThat(Db.count(sql, "SELECT count(*) FROM idempotency_keys WHERE action_id IN (?, ?, ?, ?)"
                    + " AND key = idempotency_key(action_id) AND retired_at IS NULL", alices, bobs, dans, byHand))
                    .isEqualTo(4);
        }
    }

    /** The action's trail as "status actor channel" lines, oldest first. */
    private static String trailOf(java.sql.Connection sql, UUID action) throws SQLException {
        List<String> lines = new ArrayList<>();
        try (var rows = sql.createStatement().executeQuery("SELECT to_status, actor, channel FROM action_history"
                + " WHERE action_id = '" + action + "' ORDER BY id")) {
            while (rows.next()) {
                lines.add(rows.getString(1) + " " + rows.getString(2) + " " + rows.getString(3));
            }
        }
        return String.join("\n", lines);
    }

    @Test
    void oneActionWritesAtMostOneLedgerRow() throws Exception {
        try (var sql = Db.owner()) {
            String tenant = "t-" + UUID.randomUUID();
            UUID wallet = DemoData.createWallet(sql, tenant, "alice", "Checking", "EUR");
            UUID action = UUID.randomUUID();
            String insert = "INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, occurred_on,"
                    + " source_action_id) VALUES (gen_random_uuid(), '%s', '%s', 1.00, 'x', current_date, '%s')"
                            .formatted(tenant, wallet, action);
            sql.createStatement().executeUpdate(insert);

            assertThatThrownBy(() -> sql.createStatement().executeUpdate(insert))
                    .isInstanceOf(SQLException.class).hasMessageContaining("source_action_id");
        }
    }

    @Test
    void theAgentsRoleCanReadButNeverWrite() throws Exception {
        String tenant = "t-" + UUID.randomUUID();
        UUID wallet;
        try (var owner = Db.owner(); var reader = Db.reader()) {
            wallet = DemoData.createWallet(owner, tenant, "alice", "Checking", "EUR");

            reader.setAutoCommit(false);
            Db.enterAsReader(reader, tenant, "alice");
            var rows = reader.createStatement().executeQuery("SELECT name FROM wallets WHERE id = '" + wallet + "'");
            assertThat(rows.next()).isTrue();
            reader.rollback();
            reader.setAutoCommit(true);
        }
        Db.refusedAsReader(tenant, "42501",
                "INSERT INTO wallets (id, tenant_id, owner_id, name, currency) VALUES (gen_random_uuid(), 'x', 'x',"
                        + " 'x', 'EUR')",
                "UPDATE wallets SET name = 'pwned' WHERE id = '" + wallet + "'",
                "DELETE FROM transactions",
                "UPDATE actions SET status = 'confirmed'",
                "INSERT INTO outbox (event_id, topic, message_key, payload) VALUES (gen_random_uuid(), 'a', 'b',"
                        + " 'c')",
                "CREATE TABLE sneaky (id int)");
    }

    @Test
    void theAgentsRoleCannotSeeTokenHashes() throws Exception {
        Db.refusedAsReader("t-" + UUID.randomUUID(), "42501", "SELECT token_hash FROM actions");
    }

    @Test
    void anActionsTraceParentIsSetWhenProposedAndNeverChangedNorReadByTheAgent() throws Exception {
        String parent = "00-" + "a".repeat(32) + "-" + "b".repeat(16) + "-01";
        try (var sql = Db.owner()) {
            UUID untraced = actionIn(sql, ActionStatus.PROPOSED);
            assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                    "UPDATE actions SET trace_parent = '" + parent + "' WHERE id = '" + untraced + "'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("never changed");
            assertThatThrownBy(() -> sql.createStatement().executeUpdate(
                    "UPDATE actions SET trace_parent = 'not a traceparent' WHERE id = '" + untraced + "'"))
                    .isInstanceOf(SQLException.class);
        }
        Db.refusedAsReader("t-" + UUID.randomUUID(), "42501", "SELECT trace_parent FROM actions");
    }

    /**
     * A kind's write and undo run only through the gate, as the executor: neither the agent's role nor the role that
     * runs the model's plan statements may run any kind function or the gate's, nor the consumers' dedupe
     * (first_delivery, first_deliveries: a forged claim would drop a real event) (a privilege check, so it fails on a
     * stray GRANT even where the role's missing table rights would refuse the call anyway); and the executor's own role
     * may not replace a kind's function in the schema (nor create one), so what the gate names is what a migration
     * created. Limit: the executor's role may still create temporary functions; the executor is trusted.
     */
    @Test
    void onlyTheExecutorRunsKindFunctionsAndNoApplicationRoleReplacesThem() throws Exception {
        String kindFunctions = """
                SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = 'public' AND (p.proname LIKE 'kind\\_%' OR p.proname LIKE '%\\_write'
                      OR p.proname LIKE '%\\_undo' OR p.proname IN ('execute_action', 'undo_action', 'append_outcome',
                                                          'first_delivery', 'first_deliveries'))
                ORDER BY 1""";
        List<String> functions = new ArrayList<>();
        try (var owner = Db.owner(); var rows = owner.createStatement().executeQuery(kindFunctions)) {
            while (rows.next()) {
                functions.add(rows.getString(1));
            }
            assertThat(functions).as("the gate's and every kind's functions").contains(
                    "execute_action(uuid,regprocedure,jsonb,text,text,boolean,jsonb,boolean)",
                    "append_outcome(uuid,text,text,text,"
                            + "text,text,text,text,timestamp with time zone)",
                    "ledger_wallet_rename_write(uuid,text,text,jsonb,bigint)",
                    "ledger_wallet_rename_undo(uuid,text,jsonb,jsonb,jsonb)", "kind_refuse(text,text)",
                    "first_deliveries(text,uuid[])");
            for (String function : functions) {
                for (String role : List.of(LocalPostgres.READER_ROLE, LocalPostgres.PLAN_ROLE)) {
                    assertThat(Db.count(owner,
                            "SELECT count(*) FROM (SELECT 1 WHERE has_function_privilege(?, ?::regprocedure,"
                                    + " 'EXECUTE')) runs",
                            role, function)).as("%s may run %s", role, function).isZero();
                }
                assertThat(Db.count(owner, "SELECT count(*) FROM (SELECT 1 WHERE has_function_privilege(?,"
                        + " ?::regprocedure, 'EXECUTE')) runs", LocalPostgres.EXECUTOR_ROLE, function))
                        .as("the executor runs %s", function).isOne();
            }
        }
        String write = "ledger_wallet_rename_write";
        Db.refusedAsApplication("t-" + UUID.randomUUID(), "42501",
                "CREATE OR REPLACE FUNCTION " + write + "(p_action uuid, p_tenant text, p_requester text,"
                        + " p_params jsonb, p_target_version bigint) RETURNS jsonb LANGUAGE sql AS $$ SELECT '{}'::jsonb $$",
                "CREATE FUNCTION sneaky_write(p_action uuid, p_tenant text, p_requester text, p_params jsonb,"
                        + " p_target_version bigint) RETURNS jsonb LANGUAGE sql AS $$ SELECT '{}'::jsonb $$");
    }

    /**
     * The undo helpers every kind's undo reads its result with refuse, as not_undoable, an action that ran before its
     * version or its texts' writers were recorded (putting text back under the action's own name would launder it).
     */
    @Test
    void anUndoOfAnActionThatRecordedNoVersionOrNoWriterIsRefused() throws Exception {
        try (var sql = Db.owner()) {
            for (String call : new String[]{"SELECT kind_written_version('{\"transactionId\": \"x\"}'::jsonb)",
                    "SELECT kind_written_version(NULL)",
                    "SELECT kind_previous_writer('{\"version\": 3}'::jsonb, 'name')",
                    "SELECT kind_previous_writer('{\"version\": 3, \"previousWriters\": {}}'::jsonb, 'name')"}) {
                assertThatThrownBy(() -> sql.createStatement().execute(call)).as(call)
                        .isInstanceOfSatisfying(SQLException.class, refused -> {
                            assertThat(refused.getSQLState()).isEqualTo("CS001");
                            assertThat(((PSQLException) refused).getServerErrorMessage()
                                    .getDetail()).isEqualTo("not_undoable");
                        });
            }
            try (var rows = sql.createStatement().executeQuery("SELECT kind_written_version('{\"version\": 3}'),"
                    + " kind_previous_writer('{\"previousWriters\": {\"name\": null}}', 'name')")) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getLong(1)).isEqualTo(3);
                assertThat(rows.getObject(2)).as("a text that came with the row: no writer").isNull();
            }
        }
    }
}
