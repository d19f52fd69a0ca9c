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
            + " SELECT INTO, row lock, parameter or known side-effecting function was found outside strings and"
            + " comments. Functions it calls are not inspected beyond a list of known ones.";

    /**
     * A statement that begins with SELECT or WITH can embed only these commands (in a WITH clause); every other command
     * cannot appear inside it, and a second statement is refused on its own.
     */
    private static final Set<String> COMMANDS = Set.of("insert", "update", "delete", "merge");

    /** Built-ins that change state, sleep, read files or run SQL given as text. */
    private static final Set<String> SIDE_EFFECTS = Set.of("nextval", "setval", "set_config", "pg_sleep",
            "pg_sleep_for", "pg_sleep_until", "pg_advisory_lock", "pg_advisory_xact_lock", "pg_try_advisory_lock",
            "pg_try_advisory_xact_lock", "pg_advisory_lock_shared", "pg_advisory_xact_lock_shared",
            "pg_try_advisory_lock_shared", "pg_try_advisory_xact_lock_shared", "pg_notify", "pg_terminate_backend",
            "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile", "pg_read_file", "pg_read_binary_file",
            "pg_ls_dir", "pg_stat_file", "pg_switch_wal", "pg_create_restore_point", "txid_current",
            "pg_current_xact_id", "query_to_xml", "query_to_xml_and_xmlschema", "query_to_xmlschema",
            "cursor_to_xml", "table_to_xml", "dblink", "dblink_exec", "dblink_send_query", "lo_import", "lo_export",
            "lo_create", "lo_unlink", "lo_put", "lo_from_bytea", "pg_logical_emit_message",
            "pg_import_system_collations");

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
            if (token.kind() != Kind.WORD) {
                continue;
            }
            boolean previousIsDot = i > 0 && tokens.get(i - 1).isSymbol(".");
            boolean call = i + 1 < tokens.size() && tokens.get(i + 1).isSymbol("(");
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
            if (call && SIDE_EFFECTS.contains(token.value())) {
                return objection("It calls " + token.value() + "(), which has side effects or runs SQL text.");
            }
        }
        return new Guard(true, READ_ONLY);
    }

    private static Guard objection(String reason) {
        return new Guard(false, "Not classified as a single read-only SELECT. " + reason);
    }
}
