package dev.countersign.agent.plan;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.events.PlanStatementDrafted.Guard;
import dev.countersign.contracts.events.PlanStatementDrafted.Validation;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.PreparedStatement;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import io.vertx.pgclient.PgException;

/**
 * Decides what a drafted statement reads from PostgreSQL's own analysis, never from its text. In a transaction of the
 * plan role that is always rolled back, under the run's statement timeout:
 * <ol>
 * <li>PostgreSQL parses and analyses it as one prepared statement (the extended protocol refuses a second statement; an
 * unknown relation or column is PostgreSQL's error). Nothing is planned or run.</li>
 * <li>It becomes a temporary view, which only a query can be (no data-modifying statement, no SELECT INTO, no
 * parameter, distinct output column names), and whose stored query tree names, by object id, every relation, function
 * and operator it reaches ({@link QueryTree}), together with the dependencies PostgreSQL records for it.</li>
 * <li>It may run only if it is a SELECT at every level, locks no rows, does not recurse, returns at most
 * {@code max-columns} columns, reads only relations of the caller's inventory, calls only the built-in functions listed
 * in {@link #FUNCTIONS} (or a built-in cast, operator or comparison support function) and only built-in operators.</li>
 * </ol>
 * Limits: a statement that is not a query (an UPDATE the model drafted for the person to run themselves) is parsed but
 * not analysed: which relations it would write is not checked. The view's analysis is the one PostgreSQL does for a
 * query, so a relation reached by name at run time (what {@code query_to_xml} does) is not in it; such functions are
 * off the allow-list, and the plan role cannot execute them.
 */
@ApplicationScoped
public class StatementAnalysis {

    static final String RUNNABLE = "PostgreSQL analysed it as one SELECT (its own parser, read by object id): every"
            + " relation it reads is in the inventory, every function it calls is a listed pure built-in, it locks no"
            + " rows and does not recurse. It runs only as the plan role, read-only, in your tenant.";

    static final String LIMITS = "Checked by PostgreSQL in this database, as the plan role: names, columns and types"
            + " resolved as a run would resolve them. A statement that is not a SELECT is parsed only; which relations"
            + " it writes is not checked, and it is never run here.";

    /**
     * The only functions a run may call by name: pure built-ins that read nothing but their arguments. Casts, operators
     * and comparison support functions of pg_catalog are allowed besides (they are what {@code ::}, {@code +} and
     * window frames call).
     */
    static final Set<String> FUNCTIONS = Set.of(
            "count", "sum", "avg", "min", "max", "array_agg", "string_agg", "bool_and", "bool_or", "every",
            "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp", "percentile_cont",
            "percentile_disc", "mode", "corr", "covar_pop", "covar_samp",
            "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value",
            "last_value", "nth_value",
            "abs", "round", "ceil", "ceiling", "floor", "trunc", "sign", "sqrt", "power", "mod", "div", "greatest",
            "least", "width_bucket",
            "lower", "upper", "initcap", "length", "char_length", "substring", "substr", "left", "right", "trim",
            "btrim", "ltrim", "rtrim", "replace", "split_part", "concat", "concat_ws", "position", "strpos",
            "starts_with", "lpad", "rpad",
            "date_trunc", "date_part", "extract", "age", "make_date", "to_char", "to_date", "to_number",
            "justify_days", "justify_interval", "now");

    /** The view a statement becomes for its analysis; in the session's own temporary schema, rolled back. */
    private static final String VIEW = "pg_temp.countersign_plan_statement";
    /**
     * The one DDL agent-service sends: a temporary view in the plan role's session, in a transaction that is rolled
     * back (BoundaryTest allows exactly this text).
     */
    public static final String CREATE_VIEW = "CREATE TEMPORARY VIEW " + VIEW + " AS\n";

    private static final String TREE = """
            SELECT r.ev_action::text AS tree FROM pg_catalog.pg_rewrite r
            WHERE r.ev_class = 'pg_temp.countersign_plan_statement'::regclass""";

    private static final String COLUMNS = """
            SELECT a.attname::text AS name, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type,
                   t.typlen > 0 AS fixed_width
            FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
            WHERE a.attrelid = 'pg_temp.countersign_plan_statement'::regclass AND a.attnum > 0
            ORDER BY a.attnum""";

    /** What PostgreSQL recorded the view's rule to depend on: every object that is not built in (pinned). */
    private static final String DEPENDENCIES = """
            SELECT d.refclassid::regclass::text AS catalog, d.refobjid::bigint AS id
            FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_rewrite r
              ON d.classid = 'pg_catalog.pg_rewrite'::regclass AND d.objid = r.oid
            WHERE r.ev_class = 'pg_temp.countersign_plan_statement'::regclass
              AND d.refobjid <> 'pg_temp.countersign_plan_statement'::regclass""";

    /** Names each id and says whether it is allowed; relations are matched against the inventory by the caller. */
    private static final String OBJECTS = """
            SELECT 'relation' AS kind, c.oid::bigint AS id, c.oid::regclass::text AS name,
                   n.nspname::text || '.' || c.relname::text AS qualified, NULL::boolean AS allowed
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE c.oid::bigint = ANY ($1)
            UNION ALL
            SELECT 'function', p.oid::bigint, p.oid::regprocedure::text, NULL,
                   p.pronamespace = 'pg_catalog'::regnamespace AND (p.proname = ANY ($4)
                       OR EXISTS (SELECT 1 FROM pg_catalog.pg_cast k WHERE k.castfunc = p.oid)
                       OR EXISTS (SELECT 1 FROM pg_catalog.pg_operator o
                                  WHERE o.oprcode = p.oid AND o.oprnamespace = 'pg_catalog'::regnamespace)
                       OR EXISTS (SELECT 1 FROM pg_catalog.pg_amproc a WHERE a.amproc = p.oid))
            FROM pg_catalog.pg_proc p WHERE p.oid::bigint = ANY ($2)
            UNION ALL
            SELECT 'operator', o.oid::bigint, o.oid::regoperator::text, NULL,
                   o.oprnamespace = 'pg_catalog'::regnamespace
            FROM pg_catalog.pg_operator o WHERE o.oid::bigint = ANY ($3)""";

    private static final Pattern UNKNOWN_RELATION = Pattern.compile("relation \"([^\"]+)\" does not exist");
    private static final Pattern UNKNOWN_COLUMN = Pattern.compile("column \"?([^\" ]+)\"? does not exist");

    /** One output column of a statement that may run. */
    record Column(String name, String type, boolean fixedWidth) {
    }

    /**
     * @param columns
     *            the output columns, when PostgreSQL analysed it as a query (else empty)
     */
    public record Result(Guard guard, Validation validation, List<Column> columns) {

        public boolean runnable() {
            return guard.singleSelect();
        }
    }

    private final PlanSessions sessions;
    private final PlanConfig config;

    public StatementAnalysis(PlanSessions sessions, PlanConfig config) {
        this.sessions = sessions;
        this.config = config;
    }

    public Result analyse(String tenantId, String statement, SchemaInventory inventory) {
        String body = PlanStatementRunner.body(statement);
        return sessions.analysing(tenantId, sql -> analyse(sql, body, inventory))
                .await().atMost(config.runTimeout().plusSeconds(2));
    }

    private Uni<Result> analyse(SqlConnection sql, String body, SchemaInventory inventory) {
        return failure(sql.prepare(body).flatMap(PreparedStatement::close))
                .flatMap(notParsed -> notParsed != null
                        ? Uni.createFrom().item(notParsed(notParsed))
                        : failure(sql.preparedQuery(view(body)).execute())
                                .flatMap(notAQuery -> notAQuery == null
                                        ? read(sql, inventory)
                                        : Uni.createFrom().item(empty(notAQuery, body)
                                                ? notParsed(notAQuery)
                                                : notAQuery(notAQuery))));
    }

    private static String view(String body) {
        return CREATE_VIEW + body;
    }

    /**
     * Text that holds no statement (only comments) parses as PostgreSQL's empty query; as a view it is a syntax error
     * at the end of the input.
     */
    private static boolean empty(PgException e, String body) {
        try {
            return "42601".equals(e.getSqlState()) && e.getPosition() != null
                    && Integer.parseInt(e.getPosition()) > view(body).length();
        } catch (NumberFormatException notANumber) {
            return false;
        }
    }

    /** PostgreSQL's refusal of {@code step}, or null when it succeeded; any other failure stays a failure. */
    private static Uni<PgException> failure(Uni<?> step) {
        return step.map(ignored -> (PgException) null)
                .onFailure(PgException.class).recoverWithItem(e -> (PgException) e);
    }

    private Uni<Result> read(SqlConnection sql, SchemaInventory inventory) {
        return sql.preparedQuery(TREE).execute().flatMap(tree -> sql.preparedQuery(COLUMNS).execute()
                .flatMap(columns -> sql.preparedQuery(DEPENDENCIES).execute()
                        .flatMap(dependencies -> judge(sql, QueryTree.read(tree.iterator().next().getString("tree")),
                                columns(columns), dependencies, inventory))));
    }

    private Uni<Result> judge(SqlConnection sql, QueryTree tree, List<Column> columns, RowSet<Row> dependencies,
            SchemaInventory inventory) {
        Set<Long> relations = new LinkedHashSet<>(tree.relations());
        Set<Long> functions = new LinkedHashSet<>(tree.functions());
        Set<Long> operators = new LinkedHashSet<>(tree.operators());
        List<String> otherObjects = new ArrayList<>();
        for (Row dependency : dependencies) {
            switch (dependency.getString("catalog")) {
                case "pg_class" -> relations.add(dependency.getLong("id"));
                case "pg_proc" -> functions.add(dependency.getLong("id"));
                case "pg_operator" -> operators.add(dependency.getLong("id"));
                case "pg_type", "pg_collation", "pg_namespace" -> {
                }
                default -> otherObjects.add(dependency.getString("catalog") + " " + dependency.getLong("id"));
            }
        }
        return sql.preparedQuery(OBJECTS).execute(Tuple.of(ids(relations), ids(functions), ids(operators),
                FUNCTIONS.toArray(String[]::new)))
                .map(objects -> verdict(tree, columns, objects, relations.size() + functions.size()
                        + operators.size(), otherObjects, inventory));
    }

    private Result verdict(QueryTree tree, List<Column> columns, RowSet<Row> objects, int ids,
            List<String> otherObjects, SchemaInventory inventory) {
        List<String> tables = new ArrayList<>();
        List<String> unknownTables = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (Row object : objects) {
            String name = object.getString("name");
            switch (object.getString("kind")) {
                case "relation" -> {
                    tables.add(name);
                    if (!inventory.lists(object.getString("qualified"))) {
                        unknownTables.add(name);
                    }
                }
                case "function" -> {
                    if (!object.getBoolean("allowed")) {
                        refused.add("It calls " + name + ", which is not a listed pure built-in function.");
                    }
                }
                default -> {
                    if (!object.getBoolean("allowed")) {
                        refused.add("It uses the operator " + name + ", which is not built in.");
                    }
                }
            }
        }
        if (objects.size() != ids) {
            refused.add("PostgreSQL's analysis names an object that could not be identified.");
        }
        otherObjects.forEach(other -> refused.add("It depends on " + other + ", which plan runs do not use."));
        if (!unknownTables.isEmpty()) {
            refused.add(0, "It reads " + String.join(", ", unknownTables) + ", not in your schema inventory.");
        }
        if (!tree.selectOnly()) {
            refused.add("It is not a SELECT at every level.");
        }
        if (tree.locksRows()) {
            refused.add("It locks rows (FOR UPDATE or FOR SHARE), which a read-only run cannot.");
        }
        if (tree.recursive()) {
            refused.add("It is recursive (WITH RECURSIVE), which plan runs refuse: its work and values have no bound.");
        }
        if (columns.size() > config.maxColumns()) {
            refused.add("It returns %d columns; at most %d can be run here.".formatted(columns.size(),
                    config.maxColumns()));
        }
        Guard guard = refused.isEmpty()
                ? new Guard(true, RUNNABLE)
                : new Guard(false, "Not run here. " + String.join(" ", refused));
        return new Result(guard, new Validation(tables, unknownTables, List.of(), LIMITS, null), columns);
    }

    /** PostgreSQL parsed it as one statement but not as a query a view can hold. */
    private static Result notAQuery(PgException e) {
        String why = "42701".equals(e.getSqlState())
                ? " Give every output column its own name (AS ...)."
                : " Only a single SELECT can be run here; run anything else yourself, with your own tools.";
        return new Result(
                new Guard(false, "Not run here: PostgreSQL did not accept it as a query (" + e.getErrorMessage()
                        + ")." + why),
                new Validation(List.of(), List.of(), List.of(), LIMITS, null), List.of());
    }

    /** PostgreSQL could not parse or analyse it as one statement. */
    private static Result notParsed(PgException e) {
        String message = e.getErrorMessage();
        List<String> unknownTables = matches(UNKNOWN_RELATION, message);
        List<String> unknownColumns = matches(UNKNOWN_COLUMN, message);
        String objection = "PostgreSQL could not read it as one statement of this database (" + e.getSqlState() + ": "
                + message + ").";
        return new Result(new Guard(false, "Not run here. " + objection),
                new Validation(List.of(), unknownTables, unknownColumns, LIMITS, objection), List.of());
    }

    private static List<String> matches(Pattern pattern, String message) {
        Matcher matcher = pattern.matcher(message == null ? "" : message);
        return matcher.find() ? List.of(matcher.group(1)) : List.of();
    }

    private static List<Column> columns(RowSet<Row> rows) {
        List<Column> columns = new ArrayList<>();
        rows.forEach(row -> columns.add(new Column(row.getString("name"), row.getString("type"),
                row.getBoolean("fixed_width"))));
        return columns;
    }

    private static Long[] ids(Set<Long> ids) {
        return ids.toArray(Long[]::new);
    }
}
