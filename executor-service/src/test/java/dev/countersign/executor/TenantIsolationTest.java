package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Row-level security, checked with raw SQL under the roles the services run as, around the application: a transaction
 * sees and writes only the tenant it names, and one that names none sees nothing.
 */
@QuarkusTest
@ExecutorTestResources
class TenantIsolationTest {

    /** Every table holding tenant rows (the first test proves the list complete); each has the same policy. */
    private static final List<String> ISOLATED = List.of("wallets", "transactions", "actions", "action_history",
            "action_approvals", "tenant_policies", "tenant_policy_history", "outbox", "idempotency_keys",
            "conversation_events", "training_plans", "user_trust", "support_cases", "auto_apply_spends",
            "import_history", "import_approvals", "provenance_incidents", "approver_token_uses", "policy_changes",
            "undo_approvals", "wallet_transfers", "wallet_transfer_legs", "tenant_members",
            "notification_requests", "notifications", "tenant_webhook_secrets",
            "action_reminders", "second_device_requests");
    private static final String INSUFFICIENT_PRIVILEGE = "42501";

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private String mine;
    private String theirs;
    private UUID theirWallet;

    @BeforeEach
    void twoTenantsWithData() throws Exception {
        mine = "t-" + UUID.randomUUID();
        theirs = "t-" + UUID.randomUUID();
        try (var owner = Db.owner()) {
            UUID myWallet = DemoData.createWallet(owner, mine, "alice", "Checking", "EUR");
            theirWallet = DemoData.createWallet(owner, theirs, "bob", "Savings", "EUR");
            for (String tenant : List.of(mine, theirs)) {
                owner.createStatement()
                        .executeUpdate("INSERT INTO tenant_policies (tenant_id, agent_writes, updated_by)"
                                + " VALUES ('" + tenant + "', 'staged_only', 'admin')");
                owner.createStatement().executeUpdate("INSERT INTO user_trust (tenant_id, user_id,"
                        + " medium_confirmed_in_a_row) VALUES ('" + tenant + "', 'alice', 3)");
                owner.createStatement().executeUpdate("INSERT INTO support_cases (id, tenant_id, title,"
                        + " requestor_email) VALUES (gen_random_uuid(), '" + tenant + "', 'Refund', 'r@example.org')");
                owner.createStatement().executeUpdate("INSERT INTO provenance_incidents (tenant_id, since, reason,"
                        + " actions_marked) VALUES ('" + tenant + "', now(), 'drill', 0)");
                owner.createStatement().executeUpdate("INSERT INTO approver_token_uses (token_id, tenant_id,"
                        + " action_id, event_id, expires_at) VALUES (gen_random_uuid()::text, '" + tenant
                        + "', gen_random_uuid(), gen_random_uuid(), now())");
                owner.createStatement().executeUpdate("INSERT INTO policy_changes (id, tenant_id, setting, value, base,"
                        + " proposed_by, expires_at) VALUES (gen_random_uuid(), '" + tenant + "', 'tiers', '{}', '{}',"
                        + " 'admin', now() + interval '1 hour')");
                owner.createStatement().executeUpdate("INSERT INTO undo_approvals (action_id, tenant_id, approver)"
                        + " VALUES (gen_random_uuid(), '" + tenant + "', 'admin')");
                owner.createStatement().executeUpdate("INSERT INTO tenant_members (tenant_id, user_id, approver, admin)"
                        + " VALUES ('" + tenant + "', 'alice', true, false)");
                // Not due for an hour, so the planner leaves it for the test to see.
                owner.createStatement().executeUpdate("INSERT INTO notification_requests (tenant_id, action_id,"
                        + " purpose, requested_at) VALUES ('" + tenant + "', gen_random_uuid(), 'reminder',"
                        + " now() + interval '1 hour')");
                owner.createStatement().executeUpdate("INSERT INTO action_reminders (tenant_id, action_id) VALUES ('"
                        + tenant + "', gen_random_uuid())");
                owner.createStatement().executeUpdate("INSERT INTO tenant_webhook_secrets (tenant_id, secret) VALUES ('"
                        + tenant + "', 'whsec_" + "A".repeat(43) + "=')");
                owner.createStatement().executeUpdate("INSERT INTO notifications (id, tenant_id, action_id, recipient,"
                        + " channel, purpose, address, state, sent_at) VALUES (gen_random_uuid(), '" + tenant
                        + "', gen_random_uuid(), 'alice', 'email', 'waiting', 'alice@example.org', 'sent', now())");
            }
            for (String tenant : List.of(mine, theirs)) {
                owner.createStatement().executeUpdate("INSERT INTO training_plans (id, tenant_id, user_id, name,"
                        + " starts_on, schedule) VALUES (gen_random_uuid(), '" + tenant + "', 'alice', 'Base',"
                        + " current_date, 'Mon: run')");
                owner.createStatement().executeUpdate("INSERT INTO conversation_events (event_id, tenant_id, user_id,"
                        + " conversation_id, type, occurred_at, payload) VALUES (gen_random_uuid(), '" + tenant
                        + "', 'alice', 'c-1', 'TurnRecorded', now(), '{}')");
            }
            for (var wallet : List.of(List.of(mine, myWallet), List.of(theirs, theirWallet))) {
                owner.createStatement().executeUpdate("INSERT INTO transactions (id, tenant_id, wallet_id, amount,"
                        + " category, occurred_on) VALUES (gen_random_uuid(), '%s', '%s', 4.20, 'groceries',"
                                .formatted(wallet.get(0), wallet.get(1))
                        + " current_date)");
            }
            // An imported row each (its owner's): the import trigger writes its trail.
            for (var wallet : List.of(List.of(mine, myWallet, "alice"), List.of(theirs, theirWallet, "bob"))) {
                owner.createStatement().executeUpdate("INSERT INTO transactions (id, tenant_id, wallet_id, amount,"
                        + " category, occurred_on, unconfirmed, imported_by) VALUES (gen_random_uuid(), '%s', '%s',"
                                .formatted(wallet.get(0), wallet.get(1))
                        + " 9.99, 'coffee', current_date, true, '%s')".formatted(wallet.get(2)));
            }
            // A transfer each, between two wallets of its tenant: the transfer and both its legs in one statement (the
            // ledger must balance at every commit).
            for (var wallet : List.of(List.of(mine, myWallet, "alice"), List.of(theirs, theirWallet, "bob"))) {
                UUID other = DemoData.createWallet(owner, (String) wallet.get(0), (String) wallet.get(2), "Other",
                        "EUR");
                owner.createStatement().executeUpdate(
                        ("""
                                WITH transfer AS (
                                    INSERT INTO wallet_transfers (id, tenant_id, from_wallet_id, to_wallet_id, amount, currency,
                                                                  occurred_on, source_action_id)
                                    VALUES (gen_random_uuid(), '%1$s', '%2$s', '%3$s', 3.00, 'EUR', current_date,
                                            gen_random_uuid()) RETURNING id)
                                INSERT INTO wallet_transfer_legs (transfer_id, tenant_id, leg, wallet_id, amount)
                                SELECT id, '%1$s', v.leg, v.wallet, v.amount FROM transfer
                                CROSS JOIN (VALUES (1, '%2$s'::uuid, -3.00), (2, '%3$s'::uuid, 3.00)) AS v(leg, wallet, amount)""")
                                .formatted(wallet.get(0), wallet.get(1),
                                        other));
            }
            owner.createStatement().executeUpdate("INSERT INTO import_approvals (transaction_id, tenant_id, approver,"
                    + " channel) SELECT id, tenant_id, 'carol', 'http' FROM transactions WHERE unconfirmed AND tenant_id"
                    + " IN ('" + mine + "', '" + theirs + "')");
            // Actions, their history, keys and outbox rows, written by the service itself.
            var myAction = ProposalMother.staged(kafka, mine, myWallet, "1.00");
            var theirAction = ProposalMother.staged(kafka, theirs, theirWallet, "2.00");
            for (var approval : List.of(List.of(mine, myAction.actionId), List.of(theirs, theirAction.actionId))) {
                owner.createStatement().executeUpdate("INSERT INTO action_approvals (action_id, tenant_id, approver,"
                        + " channel) VALUES ('%s', '%s', 'carol', 'http')".formatted(approval.get(1), approval.get(0)));
                owner.createStatement().executeUpdate("INSERT INTO auto_apply_spends (action_id, tenant_id, user_id,"
                        + " amount) VALUES ('%s', '%s', 'alice', 1.00)".formatted(approval.get(1), approval.get(0)));
                owner.createStatement().executeUpdate("INSERT INTO second_device_requests (notification_id, tenant_id,"
                        + " action_id, user_id, params_hash, binding_code, auth_req_id, poll_interval, next_poll_at,"
                        + " expires_at) SELECT gen_random_uuid(), tenant_id, id, 'alice', params_hash, 'AAAA-AAAA',"
                        + " gen_random_uuid()::text, 1, now() + interval '1 hour', now() + interval '1 hour' FROM actions"
                        + " WHERE id = '%s'".formatted(approval.get(1)));
            }
        }
    }

    @Test
    void everyTableWithATenantColumnIsUnderRowLevelSecurity() throws Exception {
        try (var owner = Db.owner(); var tables = owner.createStatement().executeQuery("""
                SELECT c.relname, c.relrowsecurity, (SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid)
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> 'reader_grants' AND EXISTS (
                    SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id')""")) {
            List<String> withTenants = new ArrayList<>();
            while (tables.next()) {
                withTenants.add(tables.getString(1));
                assertThat(tables.getBoolean(2)).as("RLS on " + tables.getString(1)).isTrue();
                assertThat(tables.getInt(3)).as("policies on " + tables.getString(1)).isPositive();
            }
            assertThat(withTenants).containsExactlyInAnyOrderElementsOf(ISOLATED);
        }
    }

    /**
     * Each isolated table has exactly one permissive policy, and it is the rule: a permissive policy for every command
     * that keeps reads, changes and new rows to current_tenant(). The executor's key lookups rely on it alone to keep a
     * row to the tenant the transaction named (ActionRepository's class comment), so a second, widening policy or a
     * policy for some commands only fails here. Restrictive policies only narrow; the per-person one is checked below.
     */
    @Test
    void everyIsolatedTableHasOnlyTheTenantPolicyForEveryCommand() throws Exception {
        try (var owner = Db.owner(); var policies = owner.createStatement().executeQuery("""
                SELECT tablename, string_agg(concat_ws(' | ', policyname, permissive, cmd, qual, with_check), '; ')
                FROM pg_policies WHERE schemaname = 'public' AND permissive = 'PERMISSIVE' GROUP BY tablename""")) {
            java.util.Map<String, String> byTable = new java.util.TreeMap<>();
            while (policies.next()) {
                byTable.put(policies.getString(1), policies.getString(2));
            }
            for (String table : ISOLATED) {
                assertThat(byTable.get(table)).as("policies on " + table).isEqualTo(
                        "tenant_rows | PERMISSIVE | ALL | (tenant_id = current_tenant()) | (tenant_id = current_tenant())");
            }
        }
    }

    /**
     * The only restrictive policies: on the per-person tables, a grant holder (the agent's roles) sees its own person's
     * rows (R__reader_grants.sql); trusted sessions are not narrowed. reader_grants itself has no policy: no role but
     * its owner reads it.
     */
    @Test
    void onlyThePerPersonTablesNarrowGrantHoldersToTheirPerson() throws Exception {
        try (var owner = Db.owner(); var policies = owner.createStatement().executeQuery("""
                SELECT tablename, concat_ws(' | ', policyname, cmd, qual) FROM pg_policies
                WHERE schemaname = 'public' AND (permissive = 'RESTRICTIVE' OR tablename = 'reader_grants')
                ORDER BY tablename""")) {
            java.util.Map<String, String> byTable = new java.util.TreeMap<>();
            while (policies.next()) {
                byTable.put(policies.getString(1), policies.getString(2));
            }
            assertThat(byTable).containsOnlyKeys("actions", "conversation_events", "training_plans");
            assertThat(byTable.get("actions"))
                    .isEqualTo(
                            "own_person_rows | SELECT | (tenant_setting_trusted() OR (requested_by = granted_user()))");
            assertThat(byTable.get("conversation_events"))
                    .isEqualTo("own_person_rows | SELECT | (tenant_setting_trusted() OR (user_id = granted_user()))");
        }
    }

    @Test
    void theOwnerSeesBothTenantsSoTheFixtureIsReal() throws Exception {
        try (var owner = Db.owner()) {
            for (String table : ISOLATED) {
                assertThat(countOf(owner, table, theirs)).as(table).isPositive();
                assertThat(countOf(owner, table, mine)).as(table).isPositive();
            }
        }
    }

    @Test
    void theApplicationRoleSeesOnlyTheTenantItsTransactionNames() throws Exception {
        try (var app = Db.application()) {
            app.setAutoCommit(false);
            Db.enterTenant(app, mine);
            for (String table : ISOLATED.stream().filter(t -> !t.equals("outbox")).toList()) {
                assertThat(Db.count(app, "SELECT count(*) FROM " + table + " WHERE tenant_id <> ?", mine)).as(table)
                        .isZero();
                assertThat(Db.count(app, "SELECT count(*) FROM " + table + " WHERE tenant_id = ?", mine)).as(table)
                        .isPositive();
            }
            app.rollback();
        }
    }

    @Test
    void aConnectionReusedAfterATenantsTransactionIsRefusedNotShownRowsOfAnEmptyTenant() throws Exception {
        UUID blankTenantWallet;
        try (var owner = Db.owner()) {
            blankTenantWallet = DemoData.createWallet(owner, "", "nobody", "Blank", "EUR");
        }
        try (var app = Db.application()) {
            app.setAutoCommit(false);
            Db.enterTenant(app, mine);
            assertThat(Db.count(app, "SELECT count(*) FROM wallets")).isPositive();
            app.commit();
            // The setting now reads '' on this connection, as on a pooled connection after any tenant's transaction; a
            // row whose tenant is '' must not match it.
            assertNoTenantNamedRefuses(app, "SELECT count(*) FROM wallets WHERE tenant_id = ''");
            app.rollback();
        } finally {
            try (var owner = Db.owner()) {
                owner.createStatement().executeUpdate("DELETE FROM wallets WHERE id = '" + blankTenantWallet + "'");
            }
        }
    }

    /**
     * Refused, not empty: an empty answer is what code that maps "no row" to defaults would turn into the permissive
     * defaults (R__current_tenant.sql). Every table the fixture gave rows is checked, under both roles.
     */
    @Test
    void aTransactionThatNamesNoTenantIsRefusedRatherThanShownNothing() throws Exception {
        List<String> refused = new ArrayList<>();
        try (var owner = Db.owner(); var app = Db.application(); var reader = Db.reader()) {
            for (String table : ISOLATED.stream().filter(t -> !t.equals("outbox")).toList()) {
                if (Db.count(owner, "SELECT count(*) FROM " + table) == 0) {
                    continue;
                }
                assertNoTenantNamedRefuses(app, "SELECT count(*) FROM " + table);
                assertNoTenantNamedRefuses(app, "SELECT count(*) FROM " + table + " WHERE tenant_id = '" + mine + "'");
                refused.add(table);
            }
            for (String table : List.of("wallets", "transactions", "actions", "tenant_policies")) {
                assertNoTenantNamedRefuses(reader, "SELECT count(*) FROM " + table);
            }
        }
        assertThat(refused).as("tables with rows checked").contains("wallets", "transactions", "actions",
                "action_history", "tenant_policies");
    }

    private static void assertNoTenantNamedRefuses(Connection sql, String query) {
        assertThatThrownBy(() -> Db.count(sql, query)).as(query).isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("CS401"));
    }

    @Test
    void theAgentsReaderRoleSeesOnlyItsTenantToo() throws Exception {
        try (var reader = Db.reader()) {
            reader.setAutoCommit(false);
            Db.enterAsReader(reader, mine, "alice");
            for (String table : List.of("wallets", "transactions", "tenant_policies")) {
                assertThat(Db.count(reader, "SELECT count(*) FROM " + table + " WHERE tenant_id <> ?", mine)).as(table)
                        .isZero();
                assertThat(Db.count(reader, "SELECT count(*) FROM " + table + " WHERE tenant_id = ?", mine)).as(table)
                        .isPositive();
            }
            assertThat(Db.count(reader, "SELECT count(*) FROM actions WHERE tenant_id <> ?", mine)).isZero();
            reader.rollback();
        }
    }

    @Test
    void anotherTenantsRowsCanBeNeitherWrittenNorChanged() throws Exception {
        try (var app = Db.application()) {
            app.setAutoCommit(false);
            Db.enterTenant(app, mine);
            assertThat(app.createStatement().executeUpdate(
                    "UPDATE wallets SET name = 'taken' WHERE id = '" + theirWallet + "'")).isZero();
            assertThat(app.createStatement().executeUpdate(
                    "UPDATE tenant_policies SET agent_writes = 'disabled' WHERE tenant_id = '" + theirs + "'"))
                    .isZero();
            app.rollback();

            Db.enterTenant(app, mine);
            assertThatThrownBy(() -> app.createStatement().executeUpdate(
                    "INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, occurred_on) VALUES"
                            + " (gen_random_uuid(), '" + theirs + "', '" + theirWallet + "', 666, 'planted',"
                            + " current_date)"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("row-level security");
            app.rollback();
        }
        try (var owner = Db.owner()) {
            assertThat(
                    Db.count(owner,
                            "SELECT count(*) FROM wallets WHERE id = '" + theirWallet + "' AND name = 'Savings'"))
                    .isEqualTo(1);
            assertThat(Db.count(owner, "SELECT count(*) FROM tenant_policies WHERE tenant_id = ? AND agent_writes ="
                    + " 'staged_only'", theirs)).isEqualTo(1);
        }
    }

    @Test
    void theApplicationRoleCannotDeleteNorTakeTheFencesDown() throws Exception {
        try (var app = Db.application()) {
            for (String statement : new String[]{
                    "DELETE FROM transactions",
                    "INSERT INTO action_history (action_id, tenant_id, from_status, to_status, actor, channel)"
                            + " SELECT id, tenant_id, 'proposed', 'executed', 'mallory', 'sql' FROM actions LIMIT 1",
                    "INSERT INTO tenant_policy_history (tenant_id, agent_writes, changed_by) VALUES ('x', 'enabled',"
                            + " 'mallory')",
                    "INSERT INTO wallets (id, tenant_id, owner_id, name, currency) VALUES (gen_random_uuid(), 'x',"
                            + " 'x', 'x', 'EUR')",
                    "DELETE FROM actions",
                    "TRUNCATE outbox",
                    "SELECT * FROM outbox",
                    "SELECT * FROM processed_events",
                    "ALTER TABLE actions DISABLE TRIGGER actions_guard",
                    "ALTER TABLE wallets DISABLE ROW LEVEL SECURITY",
                    "DROP POLICY tenant_rows ON actions",
                    "CREATE TABLE sneaky (id int)"}) {
                // In a tenant's transaction, so that what refuses is the privilege, not the missing tenant.
                app.setAutoCommit(false);
                Db.enterTenant(app, mine);
                assertThatThrownBy(() -> app.createStatement().execute(statement)).as(statement)
                        .isInstanceOf(SQLException.class)
                        .satisfies(e -> assertThat(((SQLException) e).getSQLState())
                                .isEqualTo(INSUFFICIENT_PRIVILEGE));
                app.rollback();
            }
        }
    }

    private static int countOf(Connection sql, String table, String tenant) throws SQLException {
        return Db.count(sql, "SELECT count(*) FROM " + table + " WHERE tenant_id = ?", tenant);
    }

}
