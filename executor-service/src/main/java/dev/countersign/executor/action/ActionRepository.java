package dev.countersign.executor.action;

import static dev.countersign.contracts.ActionStatus.CANCELLED;
import static dev.countersign.contracts.ActionStatus.CONFIRMED;
import static dev.countersign.contracts.ActionStatus.EXECUTED;
import static dev.countersign.contracts.ActionStatus.EXECUTING;
import static dev.countersign.contracts.ActionStatus.EXPIRED;
import static dev.countersign.contracts.ActionStatus.FAILED;
import static dev.countersign.contracts.ActionStatus.NEEDS_REVIEW;
import static dev.countersign.contracts.ActionStatus.PROPOSED;
import static dev.countersign.contracts.ActionStatus.SUPERSEDED;
import static dev.countersign.contracts.ActionStatus.UNDONE;
import static dev.countersign.executor.db.ArrayParameters.column;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.Tier;
import dev.countersign.contracts.events.ActionExecuted;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.kind.ExecutionRefused;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * SQL for {@code actions}. Every state change is a compare-and-swap named for its transition: it names the status it
 * expects in its WHERE clause and returns the updated row only if it won; a loser gets null and nothing changed.
 * <p>
 * A lookup by key that takes the caller's tenant says {@code current_tenant() = $2}, not {@code tenant_id = $2}:
 * row-level security already keeps every row to the tenant the transaction named (R__current_tenant.sql), so the two
 * mean the same row, but a parameter compared with {@code tenant_id} is a condition a tenant-leading index can serve.
 * On a new database, before its first statistics, PostgreSQL priced that index scan the same as the primary key's and
 * sometimes kept it in the generic plan a prepared statement runs after five runs: each lookup then read all the
 * tenant's rows (docs/benchmarks.md, "Generic plans and a new database"; {@code KeyLookupPlansTest}). The executor's
 * other native key lookups (ledger, targets, auto-apply, plan revisions) are written the same way. Relying on the
 * policies alone is why the executor refuses to start as a role they would not hold ({@code RowSecurityGuard}). Limits:
 * the policy's own condition can still drive a tenant-leading index, which the test above shows PostgreSQL does not
 * pick for these statements today; the Panache reads (an action by id for GET, training plans) still compare tenant_id
 * with a parameter.
 */
@ApplicationScoped
public class ActionRepository {

    /** The columns every statement here returns (an {@link ActionRow}). */
    public static final String COLUMNS = "id, tenant_id, requested_by, conversation_id, turn_id, kind, tier, status,"
            + " params::text AS params, params_hash, summary, proposed_at, expires_at, confirmed_by, confirmed_at,"
            + " executed_at, result::text AS result, idempotency_key(id) AS idempotency_key, target_version,"
            + " target_before::text AS target_before, auto_applied, undone_by, undone_at, trace_parent, held_reason,"
            + " target_owner, mcp_client, supersedes, superseded_by, prior_requesters";

    // The statements of a person's confirm: the row locked with its stored token hash and whether its window is open
    // ($1 id, $2 tenant), the compare-and-swap proposed -> confirmed ($3 token hash, $4 who); then execute().
    public static final String LOCK_FOR_PERSON = "SELECT token_hash, expires_at > now() AS open, now() AS locked_at, "
            + COLUMNS
            + " FROM actions WHERE id = $1 AND current_tenant() = $2 FOR UPDATE";
    public static final String CONFIRM = """
            UPDATE actions SET status = 'confirmed', confirmed_by = $4, confirmed_at = now(), version = version + 1
            WHERE id = $1 AND current_tenant() = $2 AND token_hash = $3 AND status = 'proposed' AND expires_at > now()
            RETURNING\s""" + COLUMNS;
    /** The action by id in this tenant ($1 id, $2 tenant): staging's first read. */
    public static final String FIND = "SELECT " + COLUMNS + " FROM actions WHERE id = $1 AND current_tenant() = $2";
    /** The action by id in this tenant if its token hash matches ($3), locked: a decision by token. */
    public static final String LOCK_WITH_TOKEN = "SELECT expires_at > now() AS open, now() AS locked_at, " + COLUMNS
            + " FROM actions WHERE id = $1 AND current_tenant() = $2 AND token_hash = $3 FOR UPDATE";

    /**
     * Inserts proposals in one statement, each stamped and given its expiry by the database clock, in id order (so two
     * transactions inserting overlapping ids wait for each other in one order); answers the rows stored, by id. An id
     * already taken (by a committed or concurrent insert, or another tenant's action) is left alone and is absent from
     * the answer.
     */
    public Uni<Map<UUID, ActionRow>> insertProposed(SqlClient sql, List<NewAction> proposals) {
        return sql.preparedQuery("""
                INSERT INTO actions (id, tenant_id, requested_by, conversation_id, turn_id, kind, tier, status, params,
                                     params_hash, token_hash, summary, proposed_at, expires_at, target_version,
                                     target_before, trace_parent, context_clean, target_owner, mcp_client,
                                     supersedes, prior_requesters)
                SELECT n.id, n.tenant_id, n.requested_by, n.conversation_id, n.turn_id, n.kind, n.tier, 'proposed',
                       n.params::jsonb, n.params_hash, n.token_hash, n.summary, now(),
                       now() + make_interval(secs => n.ttl), n.target_version,
                       NULLIF(n.target_before::jsonb, 'null'), n.trace_parent,
                       n.context_clean, n.target_owner, n.mcp_client, n.supersedes,
                       ARRAY(SELECT jsonb_array_elements_text(n.prior_requesters::jsonb))
                FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::text[],
                            $8::text[], $9::text[], $10::text[], $11::text[], $12::float8[], $13::int8[], $14::text[],
                            $15::text[], $16::bool[], $17::text[], $18::text[], $19::uuid[], $20::text[])
                     AS n(id, tenant_id, requested_by, conversation_id, turn_id, kind, tier, params, params_hash,
                          token_hash, summary, ttl, target_version, target_before, trace_parent, context_clean,
                          target_owner, mcp_client, supersedes, prior_requesters)
                ORDER BY n.id
                ON CONFLICT (id) DO NOTHING
                RETURNING\s""" + COLUMNS)
                .execute(Tuple.from(new Object[]{
                        column(proposals, NewAction::id, UUID[]::new),
                        column(proposals, NewAction::tenantId, String[]::new),
                        column(proposals, NewAction::requestedBy, String[]::new),
                        column(proposals, NewAction::conversationId, String[]::new),
                        column(proposals, NewAction::turnId, UUID[]::new),
                        column(proposals, NewAction::kind, String[]::new),
                        column(proposals, action -> action.tier().wireName(), String[]::new),
                        column(proposals, action -> Json.write(action.params()), String[]::new),
                        column(proposals, NewAction::paramsHash, String[]::new),
                        column(proposals, NewAction::tokenHash, String[]::new),
                        column(proposals, NewAction::summary, String[]::new),
                        column(proposals, action -> action.ttl().toSeconds() + action.ttl().toNanosPart() / 1e9,
                                Double[]::new),
                        column(proposals, action -> action.target() == null ? null : action.target().version(),
                                Long[]::new),
                        column(proposals, action -> action.target() == null
                                ? null
                                : Json.write(action.target().fields()), String[]::new),
                        column(proposals, NewAction::traceParent, String[]::new),
                        column(proposals, NewAction::contextClean, Boolean[]::new),
                        column(proposals, NewAction::targetOwner, String[]::new),
                        column(proposals, NewAction::mcpClient, String[]::new),
                        column(proposals, NewAction::supersedes, UUID[]::new),
                        column(proposals, action -> Json.write(action.priorRequesters()), String[]::new)}))
                .map(ActionRepository::byId);
    }

    /** The actions of this tenant among {@code ids}, by id (another tenant's are simply absent). */
    public Uni<Map<UUID, ActionRow>> find(SqlClient sql, List<UUID> ids, String tenantId) {
        return sql.preparedQuery("SELECT " + COLUMNS + " FROM actions WHERE id = ANY($1) AND current_tenant() = $2")
                .execute(Tuple.of(ids.toArray(UUID[]::new), tenantId))
                .map(ActionRepository::byId);
    }

    /**
     * Records why a proposed action that its tier could have applied on arrival waits for a person; set once (the
     * database refuses any other change). Null if it is no longer proposed or already held.
     */
    public Uni<ActionRow> hold(SqlClient sql, UUID id, String reason) {
        return sql.preparedQuery("UPDATE actions SET held_reason = $2 WHERE id = $1 AND status = 'proposed'"
                + " AND held_reason IS NULL RETURNING " + COLUMNS)
                .execute(Tuple.of(id, reason))
                .map(ActionRepository::firstOrNull);
    }

    /** The action if it exists in this tenant; null otherwise (another tenant's action is simply absent). */
    public Uni<ActionRow> find(SqlClient sql, UUID id, String tenantId) {
        return sql.preparedQuery(FIND)
                .execute(Tuple.of(id, tenantId))
                .map(ActionRepository::firstOrNull);
    }

    /**
     * The stored confirm token hash of an action of this tenant (null if there is none), unlocked: staging compares a
     * repeated proposal's with it.
     */
    public Uni<String> tokenHash(SqlClient sql, UUID id, String tenantId) {
        return sql.preparedQuery("SELECT token_hash FROM actions WHERE id = $1 AND current_tenant() = $2")
                .execute(Tuple.of(id, tenantId))
                .map(rows -> rows.size() == 0 ? null : rows.iterator().next().getString(0));
    }

    /** Like {@link #find} but only if the token hash matches too: the no-oracle lookup behind confirm's answers. */
    public Uni<ActionRow> findWithToken(SqlClient sql, UUID id, String tenantId, String tokenHash) {
        return sql.preparedQuery("SELECT " + COLUMNS
                + " FROM actions WHERE id = $1 AND current_tenant() = $2 AND token_hash = $3")
                .execute(Tuple.of(id, tenantId, tokenHash))
                .map(ActionRepository::firstOrNull);
    }

    /**
     * Like {@link #findWithToken}, locking the row until the transaction ends: decisions on one action take turns, and
     * what a confirm checks before its compare-and-swap cannot change under it.
     */
    public Uni<LockedAction> lockWithToken(SqlClient sql, UUID id, String tenantId, String tokenHash) {
        return sql.preparedQuery(LOCK_WITH_TOKEN)
                .execute(Tuple.of(id, tenantId, tokenHash))
                .map(rows -> firstLocked(rows, tokenHash));
    }

    /**
     * The action of this tenant, locked until the transaction ends, with its stored confirm token hash: a decision by a
     * signed-in person goes through the same token-matched compare-and-swap as one by token, and reads the hash in the
     * same statement that locks the row (so a token reissued meanwhile cannot slip in between);
     * {@link LockedAction#none} if there is none.
     */
    public Uni<LockedAction> lockForPerson(SqlClient sql, UUID id, String tenantId) {
        return sql.preparedQuery(LOCK_FOR_PERSON)
                .execute(Tuple.of(id, tenantId))
                .map(rows -> firstLocked(rows, null));
    }

    /**
     * The locked row of a lock statement (its {@code open} and {@code locked_at} columns read too), with
     * {@code tokenHash}, or the stored hash the statement read when that is null; {@link LockedAction#none} without a
     * row.
     */
    private static LockedAction firstLocked(RowSet<Row> rows, String tokenHash) {
        var iterator = rows.iterator();
        if (!iterator.hasNext()) {
            return LockedAction.none(tokenHash);
        }
        Row row = iterator.next();
        return new LockedAction(tokenHash != null ? tokenHash : row.getString("token_hash"), toRow(row),
                row.getBoolean("open"), instant(row, "locked_at"));
    }

    /**
     * proposed -> confirmed, if the token hash matches and the proposal has not expired by the database's clock at this
     * statement's transaction start.
     */
    public Uni<ActionRow> confirm(SqlClient sql, UUID id, String tenantId, String tokenHash, String userId) {
        ActionTransitions.require(PROPOSED, CONFIRMED);
        return sql.preparedQuery(CONFIRM)
                .execute(Tuple.of(id, tenantId, tokenHash, userId))
                .map(ActionRepository::firstOrNull);
    }

    /**
     * proposed -> confirmed by the tier rules, with no token: for an action whose tier lets it apply on arrival
     * ({@code AutoApply}). Null if it is no longer proposed or its window has closed.
     */
    public Uni<ActionRow> autoConfirm(SqlClient sql, UUID id) {
        ActionTransitions.require(PROPOSED, CONFIRMED);
        return sql.preparedQuery("""
                UPDATE actions SET status = 'confirmed', confirmed_by = $2, confirmed_at = now(), auto_applied = true,
                                   version = version + 1
                WHERE id = $1 AND status = 'proposed' AND expires_at > now()
                RETURNING\s""" + COLUMNS)
                .execute(Tuple.of(id, ActionExecuted.AUTO_APPLIER))
                .map(ActionRepository::firstOrNull);
    }

    /** The action, locked until the transaction ends; null if it is not in this tenant. */
    public Uni<ActionRow> lock(SqlClient sql, UUID id, String tenantId) {
        return sql.preparedQuery("SELECT " + COLUMNS
                + " FROM actions WHERE id = $1 AND current_tenant() = $2 FOR UPDATE")
                .execute(Tuple.of(id, tenantId))
                .map(ActionRepository::firstOrNull);
    }

    /** Whether the action ran no longer ago than {@code window}, by the database's clock. */
    public Uni<Boolean> executedWithin(SqlClient sql, UUID id, Duration window) {
        return sql.preparedQuery("SELECT executed_at > now() - make_interval(secs => $2) AS recent FROM actions"
                + " WHERE id = $1")
                .execute(Tuple.of(id, (double) window.toSeconds()))
                .map(rows -> rows.size() > 0 && Boolean.TRUE.equals(rows.iterator().next().getBoolean("recent")));
    }

    /** executed -> undone, recording who undid it; null if it is no longer executed. */
    public Uni<ActionRow> markUndone(SqlClient sql, UUID id, String undoneBy) {
        ActionTransitions.require(EXECUTED, UNDONE);
        return sql.preparedQuery("""
                UPDATE actions SET status = 'undone', undone_by = $2, undone_at = now(), version = version + 1
                WHERE id = $1 AND status = 'executed'
                RETURNING\s""" + COLUMNS)
                .execute(Tuple.of(id, undoneBy))
                .map(ActionRepository::firstOrNull);
    }

    /**
     * proposed -> cancelled, if the token hash matches and the window is still open (an expired proposal is expired,
     * not cancelled). A confirmed action never outlives its confirming transaction here, so only proposed ones can be
     * cancelled in practice.
     */
    public Uni<ActionRow> cancel(SqlClient sql, UUID id, String tenantId, String tokenHash) {
        ActionTransitions.require(PROPOSED, CANCELLED);
        return sql.preparedQuery("""
                UPDATE actions SET status = 'cancelled', version = version + 1
                WHERE id = $1 AND current_tenant() = $2 AND token_hash = $3 AND status = 'proposed'
                  AND expires_at > now()
                RETURNING\s""" + COLUMNS)
                .execute(Tuple.of(id, tenantId, tokenHash))
                .map(ActionRepository::firstOrNull);
    }

    /** Whether the agent marked the action's proposing turn clean ({@code context_clean}); false if there is none. */
    public Uni<Boolean> contextClean(SqlClient sql, UUID id) {
        return sql.preparedQuery("SELECT context_clean FROM actions WHERE id = $1")
                .execute(Tuple.of(id))
                .map(rows -> rows.iterator().hasNext() && rows.iterator().next().getBoolean("context_clean"));
    }

    /**
     * proposed -> superseded by the action {@code by} (a person's edit), while the window is open; null if the action
     * is not proposed (someone decided it first), its window closed, or it is not in this tenant.
     */
    public Uni<ActionRow> supersede(SqlClient sql, UUID id, String tenantId, UUID by) {
        ActionTransitions.require(PROPOSED, SUPERSEDED);
        return sql.preparedQuery("""
                UPDATE actions SET status = 'superseded', superseded_by = $3, version = version + 1
                WHERE id = $1 AND current_tenant() = $2 AND status = 'proposed' AND expires_at > now()
                RETURNING\s""" + COLUMNS)
                .execute(Tuple.of(id, tenantId, by))
                .map(ActionRepository::firstOrNull);
    }

    /**
     * Replaces the confirm token of a still-open proposal (the old one stops working); not a state move. Null if the
     * action is not proposed, its window has closed, or it is not in this tenant.
     */
    public Uni<ActionRow> reissueToken(SqlClient sql, UUID id, String tenantId, String newTokenHash) {
        return sql.preparedQuery("""
                UPDATE actions SET token_hash = $3, version = version + 1
                WHERE id = $1 AND current_tenant() = $2 AND status = 'proposed' AND expires_at > now()
                RETURNING\s""" + COLUMNS)
                .execute(Tuple.of(id, tenantId, newTokenHash))
                .map(ActionRepository::firstOrNull);
    }

    /**
     * The confirmed action {@code id} written by the SQL function {@code writeProcedure} (its name and arguments), then
     * confirmed -> executed with its result, the trust count and {@code event} (its result set by the database)
     * appended, in one statement ({@code execute_action}, R__execute_action.sql), which fails (CS004) unless it stored
     * {@code expected} (its result aside). A refusal of the kind's function fails with {@link ExecutionRefused}, the
     * action still confirmed and nothing of its write kept; with {@code refusalAborts} it fails the statement instead
     * (SQLSTATE CS001 or CS002), and the transaction cannot commit.
     */
    public Uni<ActionRow> execute(SqlClient sql, UUID id, String writeProcedure, String event, String eventType,
            String topic, boolean toLedger, ActionRow expected, boolean refusalAborts) {
        ActionTransitions.require(CONFIRMED, EXECUTED);
        return sql.preparedQuery(EXECUTE)
                .execute(Tuple.from(new Object[]{id, writeProcedure, event, eventType, topic, toLedger,
                        columnsOf(expected).toString(), refusalAborts}))
                .map(rows -> toRow(unlessKindRefused(rows.iterator().next())));
    }

    /**
     * The executed action {@code id} put back by the SQL function {@code undoProcedure} ({@code undo_action},
     * R__execute_action.sql); the kind's refusal fails with {@link ExecutionRefused} (the caller's transaction rolls
     * back). Not a state move: the caller marks it undone.
     */
    public Uni<Void> undo(SqlClient sql, UUID id, String undoProcedure) {
        return sql.preparedQuery("SELECT refusal, reason, moved FROM undo_action($1, $2::text::regprocedure)")
                .execute(Tuple.of(id, undoProcedure))
                .map(rows -> {
                    unlessKindRefused(rows.iterator().next());
                    return null;
                });
    }

    /**
     * The answer of {@code execute_action} or {@code undo_action}, unless it is a kind's refusal: then
     * {@link ExecutionRefused#ofKind}, nothing of the kind's work kept.
     */
    private static Row unlessKindRefused(Row answer) {
        if (answer.getString("refusal") != null) {
            throw ExecutionRefused.ofKind(answer.getString("refusal"), answer.getString("reason"),
                    answer.getBoolean("moved"));
        }
        return answer;
    }

    /** {@link #execute}'s statement; the stored row's columns come from the function's {@code stored}. */
    private static final String EXECUTE = "SELECT x.refusal, x.reason, x.moved, " + COLUMNS
            + " FROM execute_action($1, $2::text::regprocedure, $3::text::jsonb, $4, $5, $6, $7::text::jsonb, $8) x"
            + " LEFT JOIN LATERAL (SELECT (x.stored).*) stored ON true";

    /** confirmed -> failed, recording why. */
    public Uni<ActionRow> markFailed(SqlClient sql, UUID id, JsonNode result) {
        return finish(sql, id, FAILED, result);
    }

    /**
     * proposed|confirmed -> expired for those of {@code ids} whose window has closed and that are still undecided,
     * skipping rows another transaction holds (a confirm in flight, another instance's sweep).
     */
    public Uni<List<ActionRow>> expireDue(SqlClient sql, List<UUID> ids) {
        ActionTransitions.require(PROPOSED, EXPIRED);
        ActionTransitions.require(CONFIRMED, EXPIRED);
        return sql.preparedQuery("""
                UPDATE actions SET status = 'expired', version = version + 1
                WHERE id IN (SELECT id FROM actions WHERE id = ANY($1) AND status IN ('proposed', 'confirmed')
                             AND expires_at <= now() FOR UPDATE SKIP LOCKED)
                RETURNING\s""" + COLUMNS)
                .execute(Tuple.of(ids.toArray(new UUID[0])))
                .map(rows -> {
                    List<ActionRow> expired = new ArrayList<>();
                    rows.forEach(row -> expired.add(toRow(row)));
                    return expired;
                });
    }

    /** confirmed -> executing: an external call is claimed; the caller commits before making it. */
    public Uni<ActionRow> claim(SqlClient sql, UUID id) {
        ActionTransitions.require(CONFIRMED, EXECUTING);
        return sql.preparedQuery("UPDATE actions SET status = 'executing', call_started_at = now(),"
                + " version = version + 1 WHERE id = $1 AND status = 'confirmed' RETURNING " + COLUMNS)
                .execute(Tuple.of(id))
                .map(ActionRepository::firstOrNull);
    }

    /**
     * A lease on an executing action whose call started longer than {@code staleAfter} ago (nobody recorded it): the
     * call start moves to now, so no other instance takes it for another {@code staleAfter}. Null if the action is no
     * longer executing or another instance took the lease first.
     */
    public Uni<ActionRow> leaseStaleCall(SqlClient sql, UUID id, Duration staleAfter) {
        return sql.preparedQuery("UPDATE actions SET call_started_at = now(), version = version + 1"
                + " WHERE id = $1 AND status = 'executing' AND call_started_at < now() - make_interval(secs => $2)"
                + " RETURNING " + COLUMNS)
                .execute(Tuple.of(id, (double) staleAfter.toSeconds()))
                .map(ActionRepository::firstOrNull);
    }

    /**
     * executing -> executed | failed | needs_review, recording the external call's result; null if the action is no
     * longer executing (another instance recorded it first).
     */
    public Uni<ActionRow> recordCall(SqlClient sql, UUID id, ActionStatus to, JsonNode result) {
        return finish(sql, id, EXECUTING, to, result);
    }

    /** needs_review -> executed | failed, a person's finding; null if someone resolved it first. */
    public Uni<ActionRow> resolveReview(SqlClient sql, UUID id, ActionStatus to, JsonNode result) {
        return finish(sql, id, NEEDS_REVIEW, to, result);
    }

    private Uni<ActionRow> finish(SqlClient sql, UUID id, ActionStatus to, JsonNode result) {
        return finish(sql, id, CONFIRMED, to, result);
    }

    private Uni<ActionRow> finish(SqlClient sql, UUID id, ActionStatus from, ActionStatus to, JsonNode result) {
        ActionTransitions.require(from, to);
        return sql.preparedQuery(finishing(from, to))
                .execute(Tuple.of(id, Json.write(result)))
                .map(ActionRepository::firstOrNull);
    }

    /** from -> to, recording the result ($2); $1 is the action's id. */
    private static String finishing(ActionStatus from, ActionStatus to) {
        String executedAt = to == EXECUTED ? ", executed_at = now()" : "";
        return "UPDATE actions SET status = '" + to.wireName() + "', result = $2::text::jsonb" + executedAt
                + ", version = version + 1 WHERE id = $1 AND status = '" + from.wireName() + "' RETURNING " + COLUMNS;
    }

    private static Map<UUID, ActionRow> byId(RowSet<Row> rows) {
        Map<UUID, ActionRow> found = new HashMap<>();
        rows.forEach(row -> found.put(row.getUUID("id"), toRow(row)));
        return found;
    }

    private static ActionRow firstOrNull(RowSet<Row> rows) {
        var iterator = rows.iterator();
        return iterator.hasNext() ? toRow(iterator.next()) : null;
    }

    private static ActionRow toRow(Row row) {
        return new ActionRow(
                row.getUUID("id"),
                row.getString("tenant_id"),
                row.getString("requested_by"),
                row.getString("conversation_id"),
                row.getUUID("turn_id"),
                row.getString("kind"),
                Tier.fromWire(row.getString("tier")),
                ActionStatus.fromWire(row.getString("status")),
                json(row.getString("params")),
                row.getString("params_hash"),
                row.getString("summary"),
                instant(row, "proposed_at"),
                instant(row, "expires_at"),
                row.getString("confirmed_by"),
                instant(row, "confirmed_at"),
                instant(row, "executed_at"),
                json(row.getString("result")),
                row.getString("idempotency_key"),
                row.getLong("target_version"),
                json(row.getString("target_before")),
                row.getBoolean("auto_applied"),
                row.getString("undone_by"),
                instant(row, "undone_at"),
                row.getString("trace_parent"),
                row.getString("held_reason"),
                row.getString("target_owner"),
                row.getString("mcp_client"),
                row.getUUID("supersedes"),
                row.getUUID("superseded_by"),
                List.of(row.getArrayOfStrings("prior_requesters")));
    }

    /**
     * {@code row} as a JSON object of {@code actions}' columns, {@link #toRow} the other way (the result left out):
     * what the database compares a stored row with ({@code execute_action}'s expected row,
     * {@code jsonb_populate_record}).
     */
    public static ObjectNode columnsOf(ActionRow row) {
        ObjectNode columns = Json.mapper().createObjectNode();
        columns.put("id", row.id().toString());
        columns.put("tenant_id", row.tenantId());
        columns.put("requested_by", row.requestedBy());
        columns.put("conversation_id", row.conversationId());
        columns.put("turn_id", row.turnId() == null ? null : row.turnId().toString());
        columns.put("kind", row.kind());
        columns.put("tier", row.tier().wireName());
        columns.put("status", row.status().wireName());
        columns.set("params", row.params());
        columns.put("params_hash", row.paramsHash());
        columns.put("summary", row.summary());
        columns.put("proposed_at", text(row.proposedAt()));
        columns.put("expires_at", text(row.expiresAt()));
        columns.put("confirmed_by", row.confirmedBy());
        columns.put("confirmed_at", text(row.confirmedAt()));
        columns.put("executed_at", text(row.executedAt()));
        columns.put("target_version", row.targetVersion());
        columns.set("target_before", row.targetBefore());
        columns.put("auto_applied", row.autoApplied());
        columns.put("undone_by", row.undoneBy());
        columns.put("undone_at", text(row.undoneAt()));
        columns.put("trace_parent", row.traceParent());
        columns.put("held_reason", row.heldReason());
        columns.put("target_owner", row.targetOwner());
        columns.put("mcp_client", row.mcpClient());
        columns.put("supersedes", row.supersedes() == null ? null : row.supersedes().toString());
        columns.put("superseded_by", row.supersededBy() == null ? null : row.supersededBy().toString());
        row.priorRequesters().forEach(columns.putArray("prior_requesters")::add);
        return columns;
    }

    private static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    private static Instant instant(Row row, String column) {
        var value = row.getOffsetDateTime(column);
        return value == null ? null : value.toInstant();
    }

    static JsonNode json(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Json.mapper().readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
