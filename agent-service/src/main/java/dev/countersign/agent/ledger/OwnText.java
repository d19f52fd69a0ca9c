package dev.countersign.agent.ledger;

/**
 * The one rule for whose text a stored row holds, as SQL: a row's free text (a transaction's note and category, a
 * wallet's name, a plan's name, goal and schedule, an action's summary) is the reading user's own only if the action
 * that last wrote it was requested by that user and proposed from a clean turn ({@code actions.context_clean},
 * migration V16). Anything else (another user's text, a row written outside the action flow, text a steered model
 * wrote, even once a person confirmed it) is text the user did not write, and reading it taints the turn. Imported rows
 * are never the user's own; their readers add that condition.
 */
public final class OwnText {

    private OwnText() {
    }

    /**
     * A boolean SQL expression: the action whose id is {@code actionIdSql} (an expression over the row's columns; null
     * for none) exists in the row's tenant ({@code tenantIdSql}), was requested by {@code userSql} and proposed clean.
     */
    public static String writtenBy(String userSql, String actionIdSql, String tenantIdSql) {
        return ("EXISTS (SELECT 1 FROM actions own WHERE own.tenant_id = %s AND own.id = %s AND own.requested_by = %s"
                + " AND own.context_clean)").formatted(tenantIdSql, actionIdSql, userSql);
    }

    /**
     * The same rule in HQL, for the mapped reads ({@code StoredAction}): the action whose id is {@code actionIdHql}
     * exists in tenant {@code tenantIdHql}, was requested by {@code userHql} and proposed clean. Kept next to the SQL
     * form so the two cannot drift apart unseen; the tests of both kinds of read (ToolsTest, TaintTest) hold them to
     * the same answers.
     */
    public static String writtenByHql(String userHql, String actionIdHql, String tenantIdHql) {
        return ("exists (select 1 from StoredAction own where own.tenantId = %s and own.id = %s"
                + " and own.requestedBy = %s and own.contextClean = true)")
                .formatted(tenantIdHql, actionIdHql, userHql);
    }
}
