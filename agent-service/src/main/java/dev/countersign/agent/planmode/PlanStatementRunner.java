package dev.countersign.agent.planmode;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Semaphore;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.conversation.ConversationKey;
import dev.countersign.agent.conversation.ConversationLedger;
import dev.countersign.agent.evidence.Person;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.PlanRunResult;
import dev.countersign.contracts.events.PlanEvent;
import dev.countersign.contracts.events.PlanStatementDrafted;
import dev.countersign.web.ProblemException;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Cursor;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import io.vertx.pgclient.PgException;

/**
 * Runs a plan's drafted statement for the person who asked for it, never on the agent's own initiative. The statement
 * is the one recorded in the conversation ledger for that turn (the request carries no SQL). It runs only when
 * PostgreSQL's own analysis, repeated now ({@link StatementAnalysis}), finds one SELECT that reads only the caller's
 * inventory and calls only allowed functions; then as the plan role on its own pool ({@link PlanSessions}: READ ONLY,
 * always rolled back, the caller's tenant set by this runner, a statement timeout, work_mem, and a check that the role
 * is fenced), at most {@code max-concurrent-runs} at once per instance.
 * <p>
 * Memory: the statement is wrapped so that PostgreSQL cuts every variable-width value to {@code max-cell-chars} (plus
 * one, to know it was cut) before sending it, and at most one page plus one row is selected; the rows are read through
 * a cursor, {@code fetch-size} at a time, and reading stops once the page's text reaches {@code max-result-chars}. So
 * what the agent holds for a run is bounded by those settings whatever the statement builds on the server.
 * <p>
 * Limits: pages are separate runs, so a statement without ORDER BY may page inconsistently, and data that changes
 * between pages shifts them. Values are sent as text except fixed-width types (numbers, booleans, dates), so a numeric
 * arrives as its text. The server still builds each value whole before cutting it (bounded there by the statement
 * timeout and PostgreSQL's 1 GB value limit, not by this runner).
 */
@ApplicationScoped
public class PlanStatementRunner {

    private final ConversationLedger ledger;
    private final SchemaGrounding grounding;
    private final StatementAnalysis analysis;
    private final PlanSessions sessions;
    private final PlanConfig config;
    private final Semaphore runs;

    public PlanStatementRunner(ConversationLedger ledger, SchemaGrounding grounding, StatementAnalysis analysis,
            PlanSessions sessions, PlanConfig config) {
        this.runs = new Semaphore(config.maxConcurrentRuns());
        this.ledger = ledger;
        this.grounding = grounding;
        this.analysis = analysis;
        this.sessions = sessions;
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
        if (!runs.tryAcquire()) {
            throw new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE,
                    "Too many plan runs at once on this server; try again in a moment.");
        }
        boolean handedOver = false;
        try {
            StatementAnalysis.Result now = analysis.analyse(conversation.person(), drafted.sql(),
                    grounding.inventory(conversation.person()));
            if (!now.runnable()) {
                throw new ProblemException(ErrorCode.VALIDATION_FAILED, now.guard().reason()
                        + " Nothing was run.");
            }
            Uni<Page> reading = read(drafted.sql(), now.columns(), conversation.person(), size, offset)
                    // The permit is held until the database is done, not until this request gives up waiting: a
                    // statement still running holds a connection of the plan pool.
                    .onTermination().invoke(runs::release);
            handedOver = true;
            return result(turnId, now.columns(), reading, number, size, offset);
        } catch (io.smallrye.mutiny.TimeoutException e) {
            throw new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE,
                    "The database did not answer in time. Nothing was changed; try again in a moment.");
        } finally {
            if (!handedOver) {
                runs.release();
            }
        }
    }

    /**
     * The run: through {@code plan_rows} (executor migration R__plan_rows.sql), which runs the wrapped statement and
     * re-raises any error with its message cut, since PostgreSQL quotes values in messages (an invalid cast quotes its
     * whole input).
     */
    private Uni<Page> read(String statement, List<StatementAnalysis.Column> columns, Person person, int size,
            long offset) {
        int limit = (int) Math.min(size, config.maxRows() - offset);
        String wrapped = wrap(statement, columns, config.maxCellChars(), limit + 1, offset);
        String run = "SELECT * FROM plan_rows($1) AS plan_rows(" + definitions(columns) + ")";
        return sessions.running(person, sql -> sql.prepare(run).flatMap(prepared -> {
            Cursor cursor = prepared.cursor(Tuple.of(wrapped));
            return readPage(cursor, new Page(limit, config.maxCellChars(), config.maxResultChars()))
                    .onTermination().call(cursor::close)
                    // A prepared statement lives on the pooled connection until closed: another tenant's run there
                    // must not find it in pg_prepared_statements.
                    .onTermination().call(prepared::close);
        }));
    }

    private PlanRunResult result(UUID turnId, List<StatementAnalysis.Column> columns, Uni<Page> reading, int number,
            int size, long offset) {
        int limit = (int) Math.min(size, config.maxRows() - offset);
        Page read;
        try {
            read = reading.await().atMost(config.runTimeout().plus(Duration.ofSeconds(2)));
        } catch (PgException e) {
            String why = "57014".equals(e.getSqlState())
                    ? "It was stopped after the statement timeout of %s.".formatted(config.runTimeout())
                    : "53400".equals(e.getSqlState())
                            ? "It needed more temporary disk space than plan runs may use."
                            : "PostgreSQL refused it (%s): %s.".formatted(e.getSqlState(),
                                    StatementAnalysis.cut(e.getErrorMessage()));
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, why
                    + " Nothing was changed. Ask in plan mode for a corrected statement.");
        }
        boolean more = read.more;
        boolean capped = offset + limit >= config.maxRows() && more;
        return new PlanRunResult(turnId, columns.stream().map(StatementAnalysis.Column::name).toList(), read.rows,
                number, size, more && !capped, capped, read.truncated, read.cutShort);
    }

    /** The column definition list {@code plan_rows} returns: variable-width values arrive as (cut) text. */
    static String definitions(List<StatementAnalysis.Column> columns) {
        StringBuilder list = new StringBuilder();
        for (int i = 1; i <= columns.size(); i++) {
            StatementAnalysis.Column column = columns.get(i - 1);
            list.append(i > 1 ? ", " : "").append('c').append(i).append(' ')
                    .append(column.fixedWidth() ? column.type() : "text");
        }
        return list.toString();
    }

    /** Reads {@code fetch-size} rows at a time until the page is full, the rows end, or the text budget is spent. */
    private Uni<Page> readPage(Cursor cursor, Page page) {
        return cursor.read(config.fetchSize()).flatMap(rows -> {
            for (Row row : rows) {
                if (!page.add(row)) {
                    return Uni.createFrom().item(page);
                }
            }
            return cursor.hasMore() ? readPage(cursor, page) : Uni.createFrom().item(page);
        });
    }

    /**
     * The statement as a sub-select whose columns are renamed by position, each variable-width value cut by PostgreSQL
     * to {@code cellChars} + 1 characters, {@code limit} rows from {@code offset} selected. The analysis parses this
     * very text before anything runs.
     */
    static String wrap(String statement, List<StatementAnalysis.Column> columns, int cellChars, int limit,
            long offset) {
        StringBuilder select = new StringBuilder("SELECT ");
        StringBuilder names = new StringBuilder();
        for (int i = 1; i <= columns.size(); i++) {
            String column = "plan_result.c" + i;
            select.append(i > 1 ? ", " : "").append(columns.get(i - 1).fixedWidth()
                    ? column
                    : "pg_catalog.left(" + column + "::text, " + (cellChars + 1) + ")");
            names.append(i > 1 ? ", " : "").append('c').append(i);
        }
        return select + " FROM (\n" + body(statement) + "\n) AS plan_result(" + names + ") LIMIT " + limit
                + " OFFSET " + offset;
    }

    /** What one run read: at most {@code limit} rows, and whether there was more. */
    private static final class Page {

        private final List<List<Object>> rows = new ArrayList<>();
        private final int limit;
        private final int cellChars;
        private long charsLeft;
        private boolean more;
        private boolean truncated;
        private boolean cutShort;

        Page(int limit, int cellChars, long chars) {
            this.limit = limit;
            this.cellChars = cellChars;
            this.charsLeft = chars;
        }

        /** Adds the row, or returns false when the page is complete (the row is the one past it, or over budget). */
        boolean add(Row row) {
            if (rows.size() == limit) {
                more = true;
                return false;
            }
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < row.size(); i++) {
                Object value = cell(row.getValue(i));
                if (value instanceof String text) {
                    if (text.length() > cellChars) {
                        value = text.substring(0, cellChars) + "…";
                        truncated = true;
                    }
                    charsLeft -= ((String) value).length();
                }
                values.add(value);
            }
            if (charsLeft < 0 && !rows.isEmpty()) {
                more = true;
                cutShort = true;
                return false;
            }
            rows.add(values);
            return true;
        }
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
