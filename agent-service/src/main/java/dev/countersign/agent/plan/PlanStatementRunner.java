package dev.countersign.agent.plan;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Semaphore;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.chat.ConversationKey;
import dev.countersign.agent.conversation.ConversationLedger;
import dev.countersign.agent.ledger.TenantReads;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.PlanRunResult;
import dev.countersign.contracts.events.PlanEvent;
import dev.countersign.contracts.events.PlanStatementDrafted;
import dev.countersign.contracts.events.PlanStatementDrafted.Guard;
import dev.countersign.contracts.events.PlanStatementDrafted.Validation;
import dev.countersign.web.ProblemException;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import io.vertx.pgclient.PgException;

/**
 * Runs a plan's drafted statement for the person who asked for it, never on the agent's own initiative. The statement
 * is the one recorded in the conversation ledger for that turn (the request carries no SQL). It runs only when the
 * guard reads it as a single SELECT calling only allow-listed pure functions (when recorded, and again now) and every
 * relation it reads from is in the caller's inventory (tenant-wide tables only: see {@link PlanConfig#relations()});
 * then in a transaction that is READ ONLY and always rolled back, under the reader role, in the caller's tenant
 * (row-level security), with a statement timeout, wrapped as {@code SELECT * FROM (...) LIMIT/OFFSET} so at most one
 * page (plus one row, to know there is more) comes back and no more than {@code max-rows} rows are reachable; at most
 * {@code max-concurrent-runs} at once per instance.
 * <p>
 * Why the function allow-list carries the weight: row-level security is keyed on a transaction setting, and a statement
 * that could call {@code set_config} (or anything running SQL text) could change it; READ ONLY does not stop that. The
 * allow-list is lexical (quoted and qualified names included), so it refuses more than it must.
 * <p>
 * Limits: pages are separate runs, so a statement without ORDER BY may page inconsistently, and data that changes
 * between pages shifts them. The timeout bounds the database's work per page, not the size of what it sorts; a page's
 * values reach the JVM whole before they are cut to {@code max-cell-chars}.
 */
@ApplicationScoped
public class PlanStatementRunner {

    private final ConversationLedger ledger;
    private final SchemaGrounding grounding;
    private final TenantReads reads;
    private final PlanConfig config;
    private final Semaphore runs;

    public PlanStatementRunner(ConversationLedger ledger, SchemaGrounding grounding, TenantReads reads,
            PlanConfig config) {
        this.runs = new Semaphore(config.maxConcurrentRuns());
        this.ledger = ledger;
        this.grounding = grounding;
        this.reads = reads;
        this.config = config;
    }

    public PlanEvent deliverable(ConversationKey conversation, UUID turnId) {
        return ledger.planOf(conversation, turnId).orElseThrow(() -> new ProblemException(ErrorCode.NOT_FOUND,
                "You have no plan turn with this id in this conversation."));
    }

    public PlanRunResult run(ConversationKey conversation, UUID turnId, Integer page, Integer pageSize) {
        int size = pageSize == null ? config.defaultPageSize() : pageSize;
        int number = page == null ? 0 : page;
        if (size < 1 || size > config.maxPageSize() || number < 0) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "page must be 0 or more and pageSize 1 to %d.".formatted(config.maxPageSize()));
        }
        long offset = (long) number * size;
        if (offset >= config.maxRows()) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, ("Only the first %d rows can be paged to; refine"
                    + " the statement (a narrower WHERE, an aggregate) to see others.").formatted(config.maxRows()));
        }
        if (!(deliverable(conversation, turnId) instanceof PlanStatementDrafted drafted)) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "This plan turn drafted no statement, so there is nothing to run. Ask again in plan mode.");
        }
        Guard now = StatementGuard.classify(drafted.sql());
        if (!drafted.guard().singleSelect() || !now.singleSelect()) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, (drafted.guard().singleSelect()
                    ? now.reason()
                    : drafted.guard().reason()) + " Only a single read-only SELECT can be run here; run anything"
                    + " else yourself, with your own tools.");
        }
        Validation validation = IdentifierCheck.check(drafted.sql(), grounding.inventory(conversation.tenantId()));
        if (!validation.unknownTables().isEmpty()) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, ("It names relations that are not in your schema"
                    + " inventory: %s. Ask for a statement over the listed relations.")
                    .formatted(String.join(", ", validation.unknownTables())));
        }
        if (!runs.tryAcquire()) {
            throw new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE,
                    "Too many plan runs at once on this server; try again in a moment.");
        }
        try {
            return execute(turnId, drafted, conversation.tenantId(), number, size, offset);
        } finally {
            runs.release();
        }
    }

    private PlanRunResult execute(UUID turnId, PlanStatementDrafted drafted, String tenantId, int number, int size,
            long offset) {
        int limit = (int) Math.min(size, config.maxRows() - offset);
        String wrapped = "SELECT * FROM (\n" + body(drafted.sql()) + "\n) AS plan_result LIMIT $1 OFFSET $2";
        long timeoutMillis = config.runTimeout().toMillis();
        RowSet<Row> rows;
        try {
            rows = reads.inTenantRolledBack(tenantId, sql -> sql.query("SET TRANSACTION READ ONLY")
                    .execute()
                    .flatMap(ignored -> sql.preparedQuery("SELECT set_config('statement_timeout', $1, true)")
                            .execute(Tuple.of(timeoutMillis + "ms")))
                    .flatMap(ignored -> sql.preparedQuery(wrapped).execute(Tuple.of(limit + 1, offset))))
                    .await().atMost(config.runTimeout().plus(Duration.ofSeconds(2)));
        } catch (PgException e) {
            String why = "57014".equals(e.getSqlState())
                    ? "It was stopped after the statement timeout of %s.".formatted(config.runTimeout())
                    : "PostgreSQL refused it (%s): %s.".formatted(e.getSqlState(), e.getErrorMessage());
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, why
                    + " Nothing was changed. Ask in plan mode for a corrected statement.");
        } catch (io.smallrye.mutiny.TimeoutException e) {
            throw new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE,
                    "The database did not answer in time. Nothing was changed; try again in a moment.");
        }
        List<List<Object>> page0 = new ArrayList<>();
        boolean truncated = false;
        for (Row row : rows) {
            if (page0.size() == limit) {
                break;
            }
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < row.size(); i++) {
                Object value = cell(row.getValue(i));
                if (value instanceof String text && text.length() > config.maxCellChars()) {
                    value = text.substring(0, config.maxCellChars()) + "…";
                    truncated = true;
                }
                values.add(value);
            }
            page0.add(values);
        }
        boolean more = rows.size() > limit;
        boolean capped = offset + limit >= config.maxRows() && more;
        return new PlanRunResult(turnId, rows.columnsNames() == null ? List.of() : rows.columnsNames(), page0,
                number, size, more && !capped, capped, truncated);
    }

    /** The statement without a trailing semicolon, so it can sit in a subquery. */
    static String body(String sql) {
        String body = sql.strip();
        while (body.endsWith(";")) {
            body = body.substring(0, body.length() - 1).stripTrailing();
        }
        return body;
    }

    private static Object cell(Object value) {
        if (value == null || value instanceof Boolean || value instanceof Integer || value instanceof Long
                || value instanceof Short) {
            return value;
        }
        if (value instanceof Double d && Double.isFinite(d) || value instanceof Float f && Float.isFinite(f)) {
            return value;
        }
        if (value instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        if (value instanceof Object[] array) {
            return Arrays.deepToString(array);
        }
        return value.toString();
    }
}
