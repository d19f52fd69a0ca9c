package dev.countersign.agent;

import static io.restassured.RestAssured.given;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.LocalDate;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.model.ModelBrain;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.model.ModelTurn;
import dev.countersign.devsupport.testing.TestProperties;
import io.restassured.response.ValidatableResponse;

/** A fresh tenant with wallets, rows written as the owner, and a scripted conversation with the agent. */
final class AgentFixtures {

    final String tenant;
    final String bearer;
    final UUID checking;
    final UUID savings;

    AgentFixtures() throws Exception {
        this("t-" + UUID.randomUUID());
    }

    /** Alice's two EUR wallets in {@code tenant}: a tenant named in configuration must be used by one test only. */
    AgentFixtures(String tenant) throws Exception {
        this.tenant = tenant;
        this.bearer = TestProperties.agentBearer(tenant, "alice");
        ConversationAppender.start();
        try (var owner = TestProperties.ownerConnection()) {
            checking = DemoData.createWallet(owner, tenant, "alice", "Checking", "EUR");
            savings = DemoData.createWallet(owner, tenant, "alice", "Savings", "EUR");
        }
    }

    ValidatableResponse chat(String conversation, String text) {
        return given().contentType("application/json").header("Authorization", "Bearer " + bearer)
                .body(Json.write(Json.mapper().createObjectNode().put("text", text)))
                .post("/api/conversations/{id}/messages", conversation).then();
    }

    UUID transaction(UUID wallet, String amount, String category, String description, LocalDate on)
            throws Exception {
        UUID id = UUID.randomUUID();
        try (Connection owner = TestProperties.ownerConnection(); PreparedStatement insert = owner.prepareStatement("""
                INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, description, occurred_on)
                VALUES (?, ?, ?, ?, ?, ?, ?)""")) {
            insert.setObject(1, id);
            insert.setString(2, tenant);
            insert.setObject(3, wallet);
            insert.setBigDecimal(4, new BigDecimal(amount));
            insert.setString(5, category);
            insert.setString(6, description);
            insert.setObject(7, on);
            insert.executeUpdate();
        }
        return id;
    }

    /**
     * A row written by an action {@code user} requested (as the executor writes one): its note and category are that
     * user's own text.
     */
    UUID ownTransaction(String user, UUID wallet, String amount, String category, String description)
            throws Exception {
        UUID row = transaction(wallet, amount, category, description, LocalDate.now());
        writtenBy(row, "source_action_id", "transactions", user, true);
        return row;
    }

    /**
     * Marks the text of {@code row} in {@code table} as written by a fresh action of {@code user}, proposed clean or
     * not, through {@code column} (the row's source action, or the action that last wrote its text).
     */
    UUID writtenBy(UUID row, String column, String table, String user, boolean clean) throws Exception {
        UUID action = action(user, "proposed", "a change by " + user, false, clean);
        try (Connection owner = TestProperties.ownerConnection();
                PreparedStatement link = owner.prepareStatement(
                        "UPDATE %s SET %s = ? WHERE id = ?".formatted(table, column))) {
            link.setObject(1, action);
            link.setObject(2, row);
            link.executeUpdate();
        }
        return action;
    }

    /** An imported row not yet confirmed by a person. */
    UUID unconfirmedTransaction(UUID wallet, String amount, String category) throws Exception {
        UUID id = UUID.randomUUID();
        try (Connection owner = TestProperties.ownerConnection(); PreparedStatement insert = owner.prepareStatement("""
                INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, occurred_on, unconfirmed,
                                          imported_by)
                VALUES (?, ?, ?, ?, ?, current_date, true, 'alice')""")) {
            insert.setObject(1, id);
            insert.setString(2, tenant);
            insert.setObject(3, wallet);
            insert.setBigDecimal(4, new BigDecimal(amount));
            insert.setString(5, category);
            insert.executeUpdate();
        }
        return id;
    }

    /** Marks the row deleted, as the executor's delete does. */
    void delete(UUID transaction) throws Exception {
        try (Connection owner = TestProperties.ownerConnection();
                PreparedStatement mark = owner.prepareStatement(
                        "UPDATE transactions SET deleted_at = now() WHERE id = ?")) {
            mark.setObject(1, transaction);
            mark.executeUpdate();
        }
    }

    UUID plan(String user, String name, String status, String schedule) throws Exception {
        UUID id = UUID.randomUUID();
        try (Connection owner = TestProperties.ownerConnection(); PreparedStatement insert = owner.prepareStatement("""
                INSERT INTO training_plans (id, tenant_id, user_id, name, starts_on, schedule, status)
                VALUES (?, ?, ?, ?, current_date, ?, ?)""")) {
            insert.setObject(1, id);
            insert.setString(2, tenant);
            insert.setString(3, user);
            insert.setString(4, name);
            insert.setString(5, schedule);
            insert.setString(6, status);
            insert.executeUpdate();
        }
        return id;
    }

    UUID action(String user, String status, String summary) throws Exception {
        return action(user, status, summary, false);
    }

    /** {@code windowClosed}: proposed two hours ago with a window that closed an hour ago, not yet swept. */
    UUID action(String user, String status, String summary, boolean windowClosed) throws Exception {
        return action(user, status, summary, windowClosed, true);
    }

    /** {@code proposedClean}: the agent's mark it arrived with (V16 {@code context_clean}). */
    UUID action(String user, String status, String summary, boolean windowClosed, boolean proposedClean)
            throws Exception {
        return action(user, status, summary, windowClosed, proposedClean, null);
    }

    /** An action proposed in {@code conversationId} of {@code user} (null: in none, like an import's). */
    UUID actionIn(String conversationId, String user, String status, String summary) throws Exception {
        return action(user, status, summary, false, true, conversationId);
    }

    private UUID action(String user, String status, String summary, boolean windowClosed, boolean proposedClean,
            String conversationId) throws Exception {
        UUID id = UUID.randomUUID();
        try (Connection owner = TestProperties.ownerConnection();
                PreparedStatement insert = owner.prepareStatement(
                        """
                                INSERT INTO actions (id, tenant_id, requested_by, kind, tier, status, params, params_hash, token_hash,
                                                     summary, proposed_at, expires_at, context_clean, conversation_id)
                                VALUES (?, ?, ?, 'ledger.wallet.rename', 'medium', 'proposed', '{}', repeat('a', 64),
                                        repeat('b', 64), ?, now() - ?::interval, now() + ?::interval, ?, ?)""");
                PreparedStatement decide = owner.prepareStatement("UPDATE actions SET status = ? WHERE id = ?")) {
            insert.setObject(1, id);
            insert.setString(2, tenant);
            insert.setString(3, user);
            insert.setString(4, summary);
            insert.setString(5, windowClosed ? "2 hours" : "0 seconds");
            insert.setString(6, windowClosed ? "-1 hour" : "1 hour");
            insert.setBoolean(7, proposedClean);
            insert.setString(8, conversationId);
            insert.executeUpdate();
            if (!"proposed".equals(status)) {
                decide.setString(1, status);
                decide.setObject(2, id);
                decide.executeUpdate();
            }
        }
        return id;
    }

    /** A model that answers with {@code replies} in order, one per request, then with a fixed text. */
    static ModelBrain script(ModelReply... replies) {
        return scriptThenAlways(ModelReply.text("Done."), replies);
    }

    /** A model that answers with {@code replies} in order, then {@code last} on every further request. */
    static ModelBrain scriptThenAlways(ModelReply last, ModelReply... replies) {
        AtomicInteger next = new AtomicInteger();
        return turn -> {
            int index = next.getAndIncrement();
            return index < replies.length ? replies[index] : last;
        };
    }

    /** Every tool result the model was sent, in order, across the requests of the last script. */
    static List<String> lastToolResults() {
        List<com.fasterxml.jackson.databind.JsonNode> requests = ScriptedModel.requests();
        return requests.isEmpty() ? List.of() : new ModelTurn(requests.get(requests.size() - 1)).toolResults();
    }
}
