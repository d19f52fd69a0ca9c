package dev.countersign.executor.db;

import java.sql.Connection;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a migrated database holds in schema public, read from PostgreSQL's catalogs as sorted text lines, so two
 * databases compare line by line and a difference names the object and the attribute. Object ids, and the names
 * PostgreSQL derives from them (its internal foreign-key triggers), are left out: they differ between databases.
 */
final class Catalog {

    /** Each part: a name and the query whose rows, one line each, describe it. The first column names the object. */
    private static final Map<String, String> PARTS = new LinkedHashMap<>();

    static {
        PARTS.put("function names", """
                SELECT p.oid::regprocedure::text FROM pg_proc p
                WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1""");
        // prosrc with its whitespace collapsed: the body as PostgreSQL runs it, however the file indents it.
        PARTS.put("functions", """
                SELECT p.oid::regprocedure::text, pg_get_userbyid(p.proowner) AS owner, p.prosecdef, p.proconfig,
                       p.provolatile, p.proparallel, p.proisstrict, p.proleakproof, p.prokind, l.lanname,
                       pg_get_function_arguments(p.oid) AS arguments, pg_get_function_result(p.oid) AS result,
                       p.proacl, obj_description(p.oid, 'pg_proc') AS comment,
                       regexp_replace(btrim(p.prosrc), '\\s+', ' ', 'g') AS body
                FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
                WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1""");
        PARTS.put("trigger names", """
                SELECT c.relname || '.' || t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal ORDER BY 1""");
        PARTS.put("triggers",
                """
                        SELECT c.relname || '.' || t.tgname, t.tgtype, t.tgenabled, t.tgfoid::regprocedure::text AS function,
                               t.tgdeferrable, t.tginitdeferred, t.tgattr::text AS columns, pg_get_triggerdef(t.oid) AS definition
                        FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                        WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal ORDER BY 1""");
        // What the versioned migrations keep: a change to one of them while moving the rules out shows here.
        PARTS.put("relations", """
                SELECT c.relname, c.relkind, pg_get_userbyid(c.relowner) AS owner, c.relacl, c.relrowsecurity,
                       c.relforcerowsecurity
                FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace ORDER BY 1""");
        PARTS.put("columns", """
                SELECT c.relname || '.' || a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull,
                       pg_get_expr(d.adbin, d.adrelid) AS default_value, a.attidentity, a.attacl
                FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1""");
        PARTS.put("constraints", """
                SELECT conrelid::regclass::text || '.' || conname, contype, condeferrable, condeferred, convalidated,
                       pg_get_constraintdef(oid) AS definition
                FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1""");
        PARTS.put("indexes", """
                SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1""");
        PARTS.put("policies", """
                SELECT c.relname || '.' || p.polname, p.polcmd, p.polpermissive, p.polroles::regrole[]::text AS roles,
                       pg_get_expr(p.polqual, p.polrelid) AS using_expression,
                       pg_get_expr(p.polwithcheck, p.polrelid) AS check_expression
                FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
                WHERE c.relnamespace = 'public'::regnamespace ORDER BY 1""");
        PARTS.put("schema", """
                SELECT nspname, pg_get_userbyid(nspowner) AS owner, nspacl FROM pg_namespace
                WHERE nspname = 'public'""");
    }

    private Catalog() {
    }

    /** Every part's lines, in query order; closes the connection. */
    static Map<String, List<String>> read(Connection connection) throws SQLException {
        Map<String, List<String>> parts = new LinkedHashMap<>();
        try (connection; var sql = connection.createStatement()) {
            for (var part : PARTS.entrySet()) {
                List<String> lines = new ArrayList<>();
                try (var rows = sql.executeQuery(part.getValue())) {
                    ResultSetMetaData columns = rows.getMetaData();
                    while (rows.next()) {
                        StringBuilder line = new StringBuilder(rows.getString(1));
                        for (int column = 2; column <= columns.getColumnCount(); column++) {
                            line.append(" | ").append(columns.getColumnLabel(column)).append('=')
                                    .append(rows.getString(column));
                        }
                        lines.add(line.toString());
                    }
                }
                parts.put(part.getKey(), lines);
            }
        }
        return parts;
    }
}
