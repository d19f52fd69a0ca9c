package dev.countersign.executor;

import java.sql.SQLException;
import java.util.UUID;

import dev.countersign.contracts.Audiences;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.TestProperties;

/**
 * A tenant of its own for one test, so tests never see each other's rows, with alice's Checking wallet in EUR.
 *
 * @param id
 *            {@code t-<random uuid>}
 */
record TestTenant(String id, UUID wallet) {

    static TestTenant withCheckingWallet() throws SQLException {
        String id = "t-" + UUID.randomUUID();
        try (var owner = Db.owner()) {
            return new TestTenant(id, DemoData.createWallet(owner, id, "alice", "Checking", "EUR"));
        }
    }

    /** A training plan of {@code user} in this tenant, written as the owner (the only role that may skip "draft"). */
    UUID plan(String user, String status) throws SQLException {
        UUID plan = UUID.randomUUID();
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate(("INSERT INTO training_plans (id, tenant_id, user_id, name,"
                    + " starts_on, schedule, status) VALUES ('%s', '%s', '%s', 'Base', current_date, 'Mon: run',"
                    + " '%s')").formatted(plan, id, user, status));
        }
        return plan;
    }

    /**
     * An executor bearer token of {@code user} in this tenant with only {@code groups}: authorization tests name the
     * groups each case needs, so a token with every group cannot hide a missing check.
     */
    String bearer(String user, String... groups) {
        return TestProperties.tokens().mint(id, user, java.util.List.of(Audiences.EXECUTOR), java.util.List.of(groups),
                java.time.Duration.ofMinutes(10));
    }

    /** A row of alice's Checking wallet, a {@code amount} coffee ("flat white", 2026-11-01), written as the owner. */
    UUID coffee(String amount) throws SQLException {
        UUID row = UUID.randomUUID();
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate(("INSERT INTO transactions (id, tenant_id, wallet_id, amount,"
                    + " category, description, occurred_on) VALUES ('%s', '%s', '%s', %s, 'coffee', 'flat white',"
                    + " '2026-11-01')").formatted(row, id, wallet, amount));
        }
        return row;
    }

    /** An executor bearer token of {@code user} in this tenant (with the approver and admin groups). */
    String executorBearer(String user) {
        return TestProperties.executorBearer(id, user);
    }
}
