package dev.countersign.devsupport;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;

/**
 * Writes ledger rows directly as the owner role: the local stack's demo wallets and the tests' fixtures. It is not part
 * of any service; in a real deployment wallets come from the product's own onboarding.
 */
public final class DemoData {

    private DemoData() {
    }

    public static UUID createWallet(Connection owner, UUID id, String tenantId, String ownerId, String name,
            String currency) throws SQLException {
        try (PreparedStatement insert = owner.prepareStatement("""
                INSERT INTO wallets (id, tenant_id, owner_id, name, currency) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (id) DO NOTHING""")) {
            insert.setObject(1, id);
            insert.setString(2, tenantId);
            insert.setString(3, ownerId);
            insert.setString(4, name);
            insert.setString(5, currency);
            insert.executeUpdate();
        }
        return id;
    }

    public static UUID createWallet(Connection owner, String tenantId, String ownerId, String name, String currency)
            throws SQLException {
        return createWallet(owner, UUID.randomUUID(), tenantId, ownerId, name, currency);
    }

    /** A support case whose requestor the agent may propose to e-mail; kept as it is if the id exists. */
    public static UUID createSupportCase(Connection owner, UUID id, String tenantId, String title, String requestor)
            throws SQLException {
        try (PreparedStatement insert = owner.prepareStatement("""
                INSERT INTO support_cases (id, tenant_id, title, requestor_email) VALUES (?, ?, ?, ?)
                ON CONFLICT (id) DO NOTHING""")) {
            insert.setObject(1, id);
            insert.setString(2, tenantId);
            insert.setString(3, title);
            insert.setString(4, requestor);
            insert.executeUpdate();
        }
        return id;
    }
}
