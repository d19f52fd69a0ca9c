package dev.countersign.agent.actions;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.ledger.TenantReads;
import dev.countersign.agent.ledger.TenantSessions;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.Names;
import dev.countersign.contracts.json.Json;
import io.quarkus.runtime.StartupEvent;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Reads the user's actions as executor-service stored them (the reader role may see the columns a person may see, never
 * the token hash). Proposals the executor rejected are never stored; the model learns of them from the outcomes.
 */
@ApplicationScoped
public class ActionReader {

    public static final int MAX_ACTIONS = 20;
    /** More than a conversation's shown turns propose in practice; older ones are left out, newest kept. */
    public static final int MAX_CONVERSATION_ACTIONS = 200;

    private final TenantReads reads;
    private final TenantSessions sessions;

    public ActionReader(TenantReads reads, TenantSessions sessions) {
        this.reads = reads;
        this.sessions = sessions;
    }

    void parseAtStartup(@Observes StartupEvent start) {
        sessions.parseAtStartup(ACTIONS, ActionLine.class);
        sessions.parseAtStartup(ACTION, ActionLine.class);
    }

    /**
     * The user's actions, those still waiting for a decision first, then the newest. {@code pendingOnly}: only those a
     * person can still decide, i.e. proposed and inside their window (the executor's sweep marks the others expired a
     * few seconds later).
     */
    public List<ActionLine> actions(String tenantId, String userId, boolean pendingOnly) {
        return sessions.await(new Person(tenantId, userId),
                session -> session.createSelectionQuery(ACTIONS, ActionLine.class)
                        .setParameter("tenant", tenantId)
                        .setParameter("user", userId)
                        .setParameter("pendingOnly", pendingOnly)
                        .setMaxResults(MAX_ACTIONS)
                        .getResultList());
    }

    /**
     * One action of the user by its id; empty when there is none, in this tenant, requested by this user (another
     * tenant's or another person's action reads as missing, with no hint that it exists).
     */
    public java.util.Optional<ActionLine> action(String tenantId, String userId, UUID actionId) {
        return sessions.await(new Person(tenantId, userId),
                session -> session.createSelectionQuery(ACTION, ActionLine.class)
                        .setParameter("tenant", tenantId)
                        .setParameter("user", userId)
                        .setParameter("id", actionId)
                        .getResultList())
                .stream().findFirst();
    }

    /** The user's actions as lines; each query adds its own conditions. */
    private static final String USERS_ACTIONS = """
            select new dev.countersign.agent.actions.ActionReader$ActionLine(a.id, a.kind, a.tier, a.status, a.summary,
                   a.proposedAt, a.expiresAt, a.contextClean)
            from StoredAction a
            where a.tenantId = :tenant and a.requestedBy = :user
            """;
    private static final String ACTION = USERS_ACTIONS + " and a.id = :id";

    /** The database's clock ({@code instant}: the transaction's start, as {@code now()}) decides what is pending. */
    private static final String ACTIONS = USERS_ACTIONS + """
              and (:pendingOnly = false or (a.status = 'proposed' and a.expiresAt > instant))
            order by case when a.status = 'proposed' then 0 else 1 end, a.proposedAt desc""";

    /**
     * The actions proposed in one conversation of the user, newest first, at most {@link #MAX_CONVERSATION_ACTIONS}:
     * what the chat's read-only cards show. The caller checks the conversation is the user's; the query names the user
     * as well, so another user's actions in a conversation of the same id never show.
     */
    public List<CardLine> conversationActions(String tenantId, String userId, String conversationId) {
        Names names = pageNames(tenantId, userId, conversationId);
        return reads.list(new Person(tenantId, userId), """
                SELECT id, kind, tier, status, summary, params::text AS params, proposed_at, expires_at, context_clean
                FROM actions
                WHERE tenant_id = $1 AND requested_by = $2 AND conversation_id = $3
                ORDER BY proposed_at DESC
                LIMIT $4""",
                Tuple.of(tenantId, userId, conversationId, MAX_CONVERSATION_ACTIONS), row -> {
                    ActionLine line = line(row);
                    JsonNode params = Json.read(row.getString("params"), JsonNode.class);
                    return new CardLine(line, ActionCatalogue.describe(line.kind(), params, names, line.summary()));
                });
    }

    /**
     * What the person's chat calls the tenant's wallets, transactions and plans, as they are now (for card headlines
     * only: the model reads summaries, which keep ids): the tenant's wallets and current plans, and the transactions
     * the conversation's actions name, in one statement.
     */
    private Names pageNames(String tenantId, String userId, String conversationId) {
        Map<String, String> wallets = new HashMap<>();
        Map<String, String> transactions = new HashMap<>();
        Map<String, String> plans = new HashMap<>();
        reads.list(new Person(tenantId, userId), """
                SELECT 'wallet' AS type, id::text AS id, name AS text, NULL AS amount, NULL AS occurred_on,
                       owner_id AS owner
                FROM wallets WHERE tenant_id = $1
                UNION ALL
                SELECT 'plan', id::text, name, NULL, NULL, NULL FROM training_plans
                WHERE tenant_id = $1 AND status <> 'archived'
                UNION ALL
                SELECT 'transaction', t.id::text, t.category, t.amount::text, t.occurred_on::text, NULL
                FROM transactions t JOIN actions a ON a.tenant_id = t.tenant_id
                     AND a.params ->> 'transactionId' = t.id::text
                WHERE t.tenant_id = $1 AND a.requested_by = $2 AND a.conversation_id = $3""",
                Tuple.of(tenantId, userId, conversationId), row -> {
                    // The conversation's actions are the user's own: a wallet of another person is named with its owner.
                    switch (row.getString("type")) {
                        case "wallet" -> wallets.put(row.getString("id"), Names.wallet(row.getString("text"),
                                row.getString("owner"), userId));
                        case "plan" -> plans.put(row.getString("id"), "plan " + Names.quoted(row.getString("text")));
                        default -> transactions.put(row.getString("id"), Names.expense(row.getString("amount"),
                                row.getString("text"), row.getString("occurred_on")));
                    }
                    return row;
                });
        return Names.of(Map.of("wallet", wallets, "transaction", transactions, "plan", plans));
    }

    private static ActionLine line(Row row) {
        return new ActionLine(row.getUUID("id"), row.getString("kind"), row.getString("tier"),
                row.getString("status"), row.getString("summary"), row.getOffsetDateTime("proposed_at").toInstant(),
                row.getOffsetDateTime("expires_at").toInstant(), row.getBoolean("context_clean"));
    }

    /**
     * @param proposedClean
     *            whether it was proposed from a clean turn: a summary of one that was not holds text a steered model
     *            wrote ({@code OwnText})
     */
    public record ActionLine(UUID id, String kind, String tier, String status, String summary, Instant proposedAt,
            Instant expiresAt, boolean proposedClean) {

        /** What the model or an MCP client reads of it: id, summary, status, tier and, while proposed, its expiry. */
        public String text() {
            return "%s: %s (%s, %s tier%s)".formatted(id, summary, status, tier,
                    "proposed".equals(status) ? ", expires " + expiresAt : "");
        }
    }

    /** An action for the person's chat card: its line, and a headline naming what it changes. */
    public record CardLine(ActionLine action, String headline) {
    }
}
