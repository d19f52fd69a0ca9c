package dev.countersign.agent.plan;

import java.util.List;
import java.util.Set;

import dev.countersign.agent.plan.SqlText.Kind;
import dev.countersign.agent.plan.SqlText.Token;
import dev.countersign.contracts.events.PlanStatementDrafted.Guard;

/**
 * Decides, by a lexical reading, whether a drafted statement is one read-only SELECT. It says yes only for exactly one
 * statement that begins with SELECT, WITH or a parenthesis and contains, outside strings and comments, no command
 * keyword that writes or changes the schema, no SELECT INTO, no row-locking clause, no parameter placeholder and no
 * call of a function known to have side effects or to run SQL text.
 * <p>
 * Limits, which its reasons say: it over-refuses (a column named like a command, e.g. an unquoted {@code update}, is an
 * objection); and a yes is not proof: it does not know what a user-defined or unlisted function does. Running a
 * statement therefore also relies on a READ ONLY transaction and a role that can only SELECT
 * ({@code PlanStatementRunner}).
 */
final class StatementGuard {

    static final String READ_ONLY = "One SELECT statement by a lexical reading: no data-modifying or schema command,"
            + " SELECT INTO, TABLE, row lock or parameter, and every function it calls is on the list of pure built-ins"
            + " a run allows (aggregates, window, arithmetic, text and date functions). It does not parse the"
            + " statement as PostgreSQL would.";

    /**
     * A statement that begins with SELECT or WITH can embed only these commands (in a WITH clause); every other command
     * cannot appear inside it, and a second statement is refused on its own.
     */
    private static final Set<String> COMMANDS = Set.of("insert", "update", "delete", "merge");

    /**
     * The only functions a run may call: pure built-ins that read nothing but their arguments. An allow-list, not a
     * deny-list: a function that changes settings (and with them the tenant row-level security is keyed on), runs SQL
     * text, reads server state or builds huge values is refused because it is not here, whatever it is called or
     * however it is quoted.
     */
    static final Set<String> FUNCTIONS = Set.of(
            "count", "sum", "avg", "min", "max", "array_agg", "string_agg", "bool_and", "bool_or", "every",
            "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp", "percentile_cont",
            "percentile_disc", "mode", "corr", "covar_pop", "covar_samp",
            "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value",
            "last_value", "nth_value",
            "abs", "round", "ceil", "ceiling", "floor", "trunc", "sign", "sqrt", "power", "mod", "div", "greatest",
            "least", "coalesce", "nullif", "width_bucket",
            "lower", "upper", "initcap", "length", "char_length", "substring", "substr", "left", "right", "trim",
            "btrim", "ltrim", "rtrim", "replace", "split_part", "concat", "concat_ws", "position", "strpos",
            "starts_with", "lpad", "rpad",
            "date_trunc", "date_part", "age", "make_date", "to_char", "to_date", "to_number", "justify_days",
            "justify_interval", "now");

    /** Type names that take modifiers in parentheses ({@code numeric(10,2)}) after {@code ::} or CAST's AS. */
    private static final Set<String> TYPES = Set.of("numeric", "decimal", "varchar", "char", "character", "timestamp",
            "timestamptz", "time", "timetz", "interval", "float", "bit", "varbit");

    /** Keywords a parenthesis may follow that are not calls. */
    private static final Set<String> KEYWORDS = Set.of("select", "from", "where", "and", "or", "not", "in", "exists",
            "values", "over", "filter", "as", "cast", "extract", "any", "all", "some", "row", "array", "group",
            "lateral", "on", "using", "then", "else", "when", "by", "join", "between", "is", "like", "ilike",
            "distinct", "having", "case", "union", "intersect", "except", "limit", "offset", "with", "within");

    private StatementGuard() {
    }

    static Guard classify(String sql) {
        SqlText.Reading reading = SqlText.read(sql);
        if (!reading.readable()) {
            return objection("The guard cannot read it: " + reading.unreadable() + ".");
        }
        List<List<Token>> statements = SqlText.statements(reading.tokens());
        if (statements.isEmpty()) {
            return objection("There is no statement in it.");
        }
        if (statements.size() > 1) {
            return objection("It holds " + statements.size() + " statements; only a single statement is run.");
        }
        List<Token> tokens = statements.get(0);
        Token first = tokens.get(0);
        if (!(first.isWord("select") || first.isWord("with") || first.isSymbol("("))) {
            return objection("It begins with " + first.display().toUpperCase(java.util.Locale.ROOT)
                    + ", not SELECT or WITH.");
        }
        for (int i = 0; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (token.kind() == Kind.PARAM) {
                return objection("It has a parameter placeholder (" + token.value() + ") that nothing would fill.");
            }
            boolean previousIsDot = i > 0 && tokens.get(i - 1).isSymbol(".");
            boolean call = i + 1 < tokens.size() && tokens.get(i + 1).isSymbol("(");
            if (call && token.isName()) {
                String refused = refusedCall(tokens, i);
                if (refused != null) {
                    return objection(refused);
                }
            }
            if (token.kind() != Kind.WORD) {
                continue;
            }
            if (token.isWord("table")) {
                return objection("It has TABLE, which reads a whole relation by another syntax; write SELECT.");
            }
            if (token.isWord("for") && i + 1 < tokens.size()
                    && (tokens.get(i + 1).isWord("update") || tokens.get(i + 1).isWord("share")
                            || tokens.get(i + 1).isWord("no") || tokens.get(i + 1).isWord("key"))) {
                return objection("It has a row-locking clause (FOR " + tokens.get(i + 1).value()
                        .toUpperCase(java.util.Locale.ROOT) + "), which a read-only run cannot take.");
            }
            if (COMMANDS.contains(token.value()) && !previousIsDot) {
                return objection("It contains the word " + token.value().toUpperCase(java.util.Locale.ROOT)
                        + " outside strings and comments: a command that can change data or the schema, or a name"
                        + " the guard cannot tell from one (quote such a name).");
            }
            if (token.isWord("into")) {
                return objection("It has INTO: SELECT INTO creates a table.");
            }
        }
        long semicolons = reading.tokens().stream().filter(token -> token.isSymbol(";")).count();
        if (semicolons > 1 || (semicolons == 1 && !sql.strip().endsWith(";"))) {
            return objection("A semicolon may only end the statement, with nothing after it.");
        }
        return new Guard(true, READ_ONLY);
    }

    /** Null if the call at {@code i} (a name followed by a parenthesis) is allowed; otherwise the objection. */
    private static String refusedCall(List<Token> tokens, int i) {
        Token name = tokens.get(i);
        Token previous = i > 0 ? tokens.get(i - 1) : null;
        if (name.kind() == Kind.WORD && KEYWORDS.contains(name.value()) && (previous == null
                || !previous.isSymbol("."))) {
            return null;
        }
        if (previous != null && (previous.isSymbol("::") || previous.isWord("as")) && TYPES.contains(name.value())) {
            return null;
        }
        if (isCteColumnList(tokens, i + 1)) {
            return null;
        }
        boolean qualified = previous != null && previous.isSymbol(".");
        if (qualified && !(i >= 2 && tokens.get(i - 2).isWord("pg_catalog"))) {
            return "It calls " + tokens.get(i - 2).display() + "." + name.display()
                    + "(), a function outside pg_catalog, which a read-only run does not call.";
        }
        if (FUNCTIONS.contains(name.value())) {
            return null;
        }
        return "It calls " + name.display() + "(), which is not on the list of pure built-in functions a read-only run"
                + " allows (an alias with a column list, a(x, y), is refused the same way; drop the list).";
    }

    /** Whether the parenthesis at {@code open} closes into {@code AS (}: a WITH query's column list, not a call. */
    private static boolean isCteColumnList(List<Token> tokens, int open) {
        int depth = 0;
        for (int j = open; j < tokens.size(); j++) {
            if (tokens.get(j).isSymbol("(")) {
                depth++;
            } else if (tokens.get(j).isSymbol(")") && --depth == 0) {
                return j + 2 < tokens.size() && tokens.get(j + 1).isWord("as") && tokens.get(j + 2).isSymbol("(");
            }
        }
        return false;
    }

    private static Guard objection(String reason) {
        return new Guard(false, "Not classified as a single read-only SELECT. " + reason);
    }
}
