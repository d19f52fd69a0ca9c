package dev.countersign.agent.planmode;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.evidence.Person;
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
 * and operator it reaches ({@link QueryTree}), together with the dependencies PostgreSQL records for it. A statement
 * that cannot be a view (an UPDATE drafted for the person to run themselves) becomes the action of a rule on a
 * temporary table instead, so its relations are known too; it is never run here.</li>
 * <li>It may run only if it is a SELECT at every level, built only of the query-tree nodes {@link QueryTree} allows (no
 * XML, JSON or table functions, domains or TABLESAMPLE), locks no rows, does not recurse, returns at most
 * {@code max-columns} columns, reads only relations of the caller's inventory, calls only the built-in functions listed
 * in {@link #FUNCTIONS} (or a built-in cast, operator or comparison support function), uses only built-in operators and
 * types, and PostgreSQL parses it wrapped exactly as a run wraps it.</li>
 * </ol>
 * Limits: the view's analysis is the one PostgreSQL does for a query, so a relation a function reaches by name at run
 * time (what {@code query_to_xml} does) is not in it; such functions are off the allow-list, and the plan role cannot
 * execute them. The query-tree text is PostgreSQL's internal format (read here for 16 and 17).
 */
@ApplicationScoped
public class StatementAnalysis {

    static final String RUNNABLE = "PostgreSQL analysed it as one SELECT (its own parser, read by object id): every"
            + " relation it reads is in the inventory, every function its query tree names is a listed pure built-in,"
            + " it locks no rows and does not recurse. It runs only as the plan role, read-only, in your tenant.";

    static final String LIMITS = "Checked by PostgreSQL in this database, as the plan role: names, columns and types"
            + " resolved as a run would resolve them. A statement that is not a query is analysed for the relations it"
            + " names, never run here.";

    /**
     * The only functions a run may call by name: built-ins that read nothing but their arguments and whose result is no
     * larger than their arguments allow (no padding or repeating functions: a small call could build a value of a
     * gigabyte, and PostgreSQL does not interrupt {@code lpad}). Casts, operators and comparison support functions of
     * pg_catalog are allowed besides (they are what {@code ::}, {@code +} and window frames call).
     */
    static final Set<String> FUNCTIONS = Set.of(
            "count", "sum", "avg", "min", "max", "array_agg", "string_agg", "bool_and", "bool_or", "every",
            "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp", "percentile_cont",
            "percentile_disc", "mode", "corr", "covar_pop", "covar_samp",
            "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value",
            "last_value", "nth_value",
            "abs", "round", "ceil", "ceiling", "floor", "trunc", "sign", "mod", "div", "greatest",
            "least", "width_bucket",
            "lower", "upper", "initcap", "length", "char_length", "substring", "substr", "left", "right", "trim",
            "btrim", "ltrim", "rtrim", "split_part", "concat", "concat_ws", "position", "strpos",
            "starts_with",
            "date_trunc", "date_part", "extract", "age", "make_date", "to_char", "to_date", "to_number",
            "justify_days", "justify_interval", "now");

    /** The view a query becomes for its analysis; in the session's own temporary schema, rolled back. */
    private static final String VIEW = "pg_temp.countersign_plan_statement";
    /** The table whose rule holds a statement that cannot be a view; rolled back too. */
    private static final String TARGET = "pg_temp.countersign_plan_target";
    /**
     * The DDL agent-service sends, all of it into the plan role's own temporary schema in a transaction that is rolled
     * back (BoundaryTest allows exactly these texts).
     */
    public static final String CREATE_VIEW = "CREATE TEMPORARY VIEW " + VIEW + " AS\n";
    public static final String CREATE_TARGET = "CREATE TEMPORARY TABLE " + TARGET + " ()";
    public static final String CREATE_RULE = "CREATE RULE countersign_plan_rule AS ON INSERT TO " + TARGET
            + " DO INSTEAD\n";

    private static final String TREE = """
            SELECT r.ev_action::text AS tree, r.ev_class::bigint AS self FROM pg_catalog.pg_rewrite r
            WHERE r.ev_class = $1::regclass""";

    private static final String COLUMNS = """
            SELECT a.attname::text AS name, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type,
                   t.typlen > 0 AS fixed_width
            FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
            WHERE a.attrelid = $1::regclass AND a.attnum > 0
            ORDER BY a.attnum""";

    /** What PostgreSQL recorded the rule to depend on: every object that is not built in (pinned). */
    private static final String DEPENDENCIES = """
            SELECT d.refclassid::regclass::text AS catalog, d.refobjid::bigint AS id
            FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_rewrite r
              ON d.classid = 'pg_catalog.pg_rewrite'::regclass AND d.objid = r.oid
            WHERE r.ev_class = $1::regclass AND d.refobjid <> $1::regclass""";

    /** Names each id and says whether it is allowed; relations are matched against the inventory by the caller. */
    private static final String OBJECTS = """
            SELECT 'relation' AS kind, c.oid::bigint AS id, c.oid::regclass::text AS name,
                   n.nspname::text || '.' || c.relname::text AS qualified, NULL::boolean AS allowed
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE c.oid::bigint = ANY ($1)
            UNION ALL
            SELECT 'function', p.oid::bigint, p.oid::regprocedure::text, NULL,
                   p.pronamespace = 'pg_catalog'::regnamespace AND (p.proname = ANY ($4)
                       OR NOT p.oid::bigint = ANY ($5) AND p.proname <> ALL ($6) AND (
                           EXISTS (SELECT 1 FROM pg_catalog.pg_cast k WHERE k.castfunc = p.oid
                                   AND 'xml'::regtype NOT IN (k.castsource, k.casttarget))
                           OR EXISTS (SELECT 1 FROM pg_catalog.pg_operator o
                                      WHERE o.oprcode = p.oid AND o.oprnamespace = 'pg_catalog'::regnamespace)
                           OR EXISTS (SELECT 1 FROM pg_catalog.pg_amproc a WHERE a.amproc = p.oid)))
            FROM pg_catalog.pg_proc p WHERE p.oid::bigint = ANY ($2)
            UNION ALL
            SELECT 'operator', o.oid::bigint, o.oid::regoperator::text, NULL,
                   o.oprnamespace = 'pg_catalog'::regnamespace AND o.oprcode::text <> ALL ($6)
            FROM pg_catalog.pg_operator o WHERE o.oid::bigint = ANY ($3)""";

    /**
     * Built-in operator functions refused although operators are otherwise allowed: they build huge numbers from small
     * ones, and PostgreSQL's arithmetic on such numbers does not check for cancellation.
     */
    static final List<String> REFUSED_OPERATOR_FUNCTIONS = List.of("numeric_power", "numeric_exp", "numeric_ln",
            "numeric_log", "numeric_fac");

    private static final Pattern UNKNOWN_RELATION = Pattern.compile("relation \"([^\"]+)\" does not exist");
    private static final Pattern UNKNOWN_COLUMN = Pattern.compile("column \"?([^\" ]+)\"? does not exist");
    /** PostgreSQL's messages are quoted to the person and the model; a value echoed in one is cut to this. */
    static final int MESSAGE_CHARS = 300;
    /** The largest expanded expression a run may evaluate ({@link ExpandedSize}). */
    static final long MAX_EXPANDED_SIZE = 20_000;
    /** The longest statement analysed; longer is a shortfall. */
    static final int MAX_STATEMENT_CHARS = 10_000;

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

    /** What one stored rule's tree and dependencies hold. */
    private record Reading(QueryTree tree, Set<Long> relations, Set<Long> functions, Set<Long> operators,
            List<String> refused, RowSet<Row> objects) {
    }

    private final PlanSessions sessions;
    private final PlanConfig config;

    public StatementAnalysis(PlanSessions sessions, PlanConfig config) {
        this.sessions = sessions;
        this.config = config;
    }

    public Result analyse(Person person, String statement, SchemaInventory inventory) {
        String body = PlanStatementRunner.body(statement);
        if (body.length() > MAX_STATEMENT_CHARS) {
            String objection = "It is %d characters long; plan mode reads statements of up to %d (a constant in it is"
                    + " part of what bounds the values a run can build).".formatted(body.length(), MAX_STATEMENT_CHARS);
            return new Result(new Guard(false, "Not run here. " + objection),
                    new Validation(List.of(), List.of(), List.of(), LIMITS, objection), List.of());
        }
        return sessions.analysing(person, sql -> analyse(sql, body, inventory))
                .await().atMost(config.runTimeout().plusSeconds(2));
    }

    /** The analysis could not be made (the database did not answer): not a statement PostgreSQL has read. */
    public static Result unavailable(String why) {
        String objection = "PostgreSQL could not analyse it now (" + cut(why) + ").";
        return new Result(new Guard(false, "Not run here. " + objection),
                new Validation(List.of(), List.of(), List.of(), LIMITS, objection), List.of());
    }

    private Uni<Result> analyse(SqlConnection sql, String body, SchemaInventory inventory) {
        return failure(sql.prepare(body).flatMap(PreparedStatement::close)).flatMap(notParsed -> {
            if (notParsed != null) {
                return Uni.createFrom().item(notParsed(notParsed));
            }
            return sql.query("SAVEPOINT countersign_plan_query").execute()
                    .flatMap(saved -> failure(sql.preparedQuery(CREATE_VIEW + body).execute()))
                    .flatMap(notAQuery -> {
                        if (notAQuery == null) {
                            return query(sql, body, inventory);
                        }
                        if (empty(notAQuery, body)) {
                            return Uni.createFrom().item(notParsed(notAQuery));
                        }
                        return sql.query("ROLLBACK TO SAVEPOINT countersign_plan_query").execute()
                                .flatMap(back -> notAQuery(sql, body, notAQuery, inventory));
                    });
        });
    }

    /** A query: judged, and parsed once more exactly as a run wraps it. */
    private Uni<Result> query(SqlConnection sql, String body, SchemaInventory inventory) {
        return sql.preparedQuery(COLUMNS).execute(Tuple.of(VIEW)).map(StatementAnalysis::columns)
                .flatMap(columns -> reading(sql, VIEW).flatMap(reading -> {
                    Result judged = judge(reading, columns, inventory);
                    if (!judged.runnable()) {
                        return Uni.createFrom().item(judged);
                    }
                    String wrapped = PlanStatementRunner.wrap(body, columns, config.maxCellChars(), 1, 0);
                    return failure(sql.prepare(wrapped).flatMap(PreparedStatement::close))
                            .map(unwrappable -> unwrappable == null
                                    ? judged
                                    : new Result(new Guard(false, "Not run here: it does not run as a sub-select ("
                                            + cut(unwrappable.getErrorMessage()) + "). End it with the statement"
                                            + " itself, without anything after a semicolon."),
                                            judged.validation(), List.of()));
                }));
    }

    /** Not a query: the relations it names come from a rule holding it; it is never run here. */
    private Uni<Result> notAQuery(SqlConnection sql, String body, PgException why, SchemaInventory inventory) {
        String hint = "42701".equals(why.getSqlState())
                ? " Give every output column its own name (AS ...)."
                : " Only a single SELECT can be run here; run anything else yourself, with your own tools.";
        Guard guard = new Guard(false, "Not run here: PostgreSQL did not accept it as a query ("
                + cut(why.getErrorMessage()) + ")." + hint);
        return sql.query(CREATE_TARGET).execute()
                .flatMap(table -> failure(sql.preparedQuery(CREATE_RULE + body).execute()))
                .flatMap(unanalysable -> {
                    if (unanalysable != null) {
                        String objection = "PostgreSQL could not analyse which relations it names ("
                                + cut(unanalysable.getErrorMessage()) + ").";
                        return Uni.createFrom().item(new Result(guard,
                                new Validation(List.of(), List.of(), List.of(), LIMITS, objection), List.of()));
                    }
                    return reading(sql, TARGET).map(reading -> {
                        List<String> tables = new ArrayList<>();
                        List<String> unknownTables = new ArrayList<>();
                        relations(reading.objects(), inventory, tables, unknownTables);
                        return new Result(guard, new Validation(tables, unknownTables, List.of(), LIMITS, null),
                                List.of());
                    });
                });
    }

    /** The tree of the rule stored for {@code relation}, its dependencies, and every id named. */
    private Uni<Reading> reading(SqlConnection sql, String relation) {
        return sql.preparedQuery(TREE).execute(Tuple.of(relation)).flatMap(trees -> {
            Row stored = trees.iterator().next();
            QueryTree tree = QueryTree.read(stored.getString("tree"));
            long self = stored.getLong("self");
            return sql.preparedQuery(DEPENDENCIES).execute(Tuple.of(relation)).flatMap(dependencies -> {
                Set<Long> relations = new LinkedHashSet<>(tree.relations());
                Set<Long> functions = new LinkedHashSet<>(tree.functions());
                Set<Long> operators = new LinkedHashSet<>(tree.operators());
                List<String> refused = new ArrayList<>();
                for (Row dependency : dependencies) {
                    switch (dependency.getString("catalog")) {
                        case "pg_class" -> relations.add(dependency.getLong("id"));
                        case "pg_proc" -> functions.add(dependency.getLong("id"));
                        case "pg_operator" -> operators.add(dependency.getLong("id"));
                        case "pg_collation", "pg_namespace" -> {
                        }
                        case "pg_type" -> refused.add("It uses a type that is not built in (type "
                                + dependency.getLong("id") + "), whose functions plan runs do not check.");
                        default -> refused.add("It depends on " + dependency.getString("catalog") + " "
                                + dependency.getLong("id") + ", which plan runs do not use.");
                    }
                }
                // Before PostgreSQL 16 a rule's tree also names its own relation (OLD and NEW).
                relations.remove(self);
                return sql.preparedQuery(OBJECTS).execute(Tuple.of(ids(relations), ids(functions), ids(operators),
                        FUNCTIONS.toArray(String[]::new), ids(tree.namedCalls()),
                        REFUSED_OPERATOR_FUNCTIONS.toArray(String[]::new)))
                        .map(objects -> new Reading(tree, relations, functions, operators, refused, objects));
            });
        });
    }

    private Result judge(Reading reading, List<Column> columns, SchemaInventory inventory) {
        QueryTree tree = reading.tree();
        List<String> tables = new ArrayList<>();
        List<String> unknownTables = new ArrayList<>();
        relations(reading.objects(), inventory, tables, unknownTables);
        List<String> refused = new ArrayList<>(reading.refused());
        for (Row object : reading.objects()) {
            String kind = object.getString("kind");
            if ("function".equals(kind) && !object.getBoolean("allowed")) {
                refused.add("It calls " + object.getString("name") + ", which is not a listed pure built-in"
                        + " function.");
            } else if ("operator".equals(kind) && !object.getBoolean("allowed")) {
                refused.add("It uses the operator " + object.getString("name") + ", which is not built in.");
            }
        }
        int named = reading.relations().size() + reading.functions().size() + reading.operators().size();
        if (reading.objects().size() != named) {
            refused.add("PostgreSQL's analysis names an object that could not be identified.");
        }
        if (!unknownTables.isEmpty()) {
            refused.add(0, "It reads " + String.join(", ", unknownTables) + ", not in your schema inventory.");
        }
        if (!tree.unknownNodes().isEmpty()) {
            refused.add("It uses " + String.join(", ", tree.unknownNodes()) + " (PostgreSQL's node names), which plan"
                    + " runs do not allow: XML, JSON and table functions, domains and sampling are refused because"
                    + " their work cannot be checked or interrupted.");
        }
        if (tree.xml()) {
            refused.add("It uses the xml type, which plan runs refuse: parsing it cannot be interrupted.");
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
        if (tree.expandedSize() > MAX_EXPANDED_SIZE) {
            refused.add(("Its expressions grow to about %d nodes once PostgreSQL copies its sub-selects' columns into"
                    + " the levels that use them (a column defined as v || v used twice, level upon level); plan runs"
                    + " stop at %d, because PostgreSQL cannot cancel one row's expression. Compute each value once"
                    + " (an aggregate or a single level).").formatted(tree.expandedSize(), MAX_EXPANDED_SIZE));
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

    private static void relations(RowSet<Row> objects, SchemaInventory inventory, List<String> tables,
            List<String> unknownTables) {
        for (Row object : objects) {
            if ("relation".equals(object.getString("kind"))) {
                tables.add(object.getString("name"));
                if (!inventory.lists(object.getString("qualified"))) {
                    unknownTables.add(object.getString("name"));
                }
            }
        }
    }

    /** PostgreSQL's refusal of {@code step}, or null when it succeeded; any other failure stays a failure. */
    private static Uni<PgException> failure(Uni<?> step) {
        return step.map(ignored -> (PgException) null)
                .onFailure(PgException.class).recoverWithItem(e -> (PgException) e);
    }

    /**
     * Text that holds no statement (only comments) parses as PostgreSQL's empty query; as a view it is a syntax error
     * at the end of the input.
     */
    private static boolean empty(PgException e, String body) {
        try {
            return "42601".equals(e.getSqlState()) && e.getPosition() != null
                    && Integer.parseInt(e.getPosition()) > (CREATE_VIEW + body).length();
        } catch (NumberFormatException notANumber) {
            return false;
        }
    }

    /** PostgreSQL could not parse or analyse it as one statement. */
    private static Result notParsed(PgException e) {
        String message = cut(e.getErrorMessage());
        List<String> unknownTables = matches(UNKNOWN_RELATION, message);
        List<String> unknownColumns = matches(UNKNOWN_COLUMN, message);
        String objection = "PostgreSQL could not read it as one statement of this database (" + e.getSqlState() + ": "
                + message + ").";
        return new Result(new Guard(false, "Not run here. " + objection),
                new Validation(List.of(), unknownTables, unknownColumns, LIMITS, objection), List.of());
    }

    /** A message of PostgreSQL's, cut: it may quote a value of any size. */
    static String cut(String message) {
        String text = message == null ? "" : message;
        return text.length() > MESSAGE_CHARS ? text.substring(0, MESSAGE_CHARS) + "…" : text;
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
