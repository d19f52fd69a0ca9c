package dev.countersign.agent.planmode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.ledger.TenantReads;
import dev.countersign.agent.planmode.SchemaInventory.Column;
import dev.countersign.agent.planmode.SchemaInventory.Scope;
import dev.countersign.agent.planmode.SchemaInventory.Table;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;

/**
 * Reads the schema inventory for one plan run, from the catalog only ({@code pg_catalog}; no user table is read, so
 * nothing is scanned and no value of any row is seen), under the reader role in the caller's tenant transaction.
 * <p>
 * "Tenant-visible" means: a relation (table, view, materialized view, foreign table, partitioned parent; partitions are
 * left out) in a schema the role may use, on which the role may SELECT at least one column, listed with exactly the
 * columns it may SELECT (so {@code actions.token_hash}, which the role cannot read, is not listed). Row-level security
 * then shows the caller only its tenant's rows of those relations.
 * <p>
 * Statistics, two sources, so that owner's rights are used only where PostgreSQL hides what the model needs:
 * <ul>
 * <li>a relation without row-level security: {@code pg_class.reltuples} (the whole table's estimate; -1, never
 * analysed, is "unknown"), and {@code null_frac} and {@code n_distinct} from the {@code pg_stats} view, which
 * PostgreSQL itself filters to the columns the role may read;</li>
 * <li>a relation under row-level security, for which PostgreSQL shows nothing in {@code pg_stats} and whose
 * {@code reltuples} counts every tenant's rows: {@code plan_statistics()} (executor migration R__plan_statistics.sql,
 * SECURITY DEFINER), which gives the planner's estimate of the caller's tenant's rows only, and whole-table null
 * fractions and distinct estimates of the columns the caller may read, when the relation's row-level security is the
 * tenant rule. A relation it does not describe (another policy) is listed with its estimates withheld.</li>
 * </ul>
 * {@code most_common_vals} and the other sample columns are never returned by either. Nothing is cached: every run
 * reads the catalog afresh, so any replica, after any restart, grounds the same way.
 */
@ApplicationScoped
public class SchemaGrounding {

    /** At most this many relations, and columns per relation, reach the model. */
    static final int MAX_RELATIONS = 200;
    static final int MAX_COLUMNS = 100;

    private static final String VISIBLE = """
            WITH visible AS (
                SELECT c.oid, n.nspname, c.relname, c.relkind, c.reltuples, c.relrowsecurity
                FROM pg_catalog.pg_class c
                JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition
                  AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
                  AND pg_catalog.has_schema_privilege(n.oid, 'USAGE')
                  AND pg_catalog.has_any_column_privilege(c.oid, 'SELECT'))
            """;

    static final String RELATIONS = VISIBLE + """
            SELECT oid::bigint AS oid, nspname::text AS schema_name, relname::text AS name, relkind::text AS kind,
                   reltuples::float8 AS reltuples, relrowsecurity AS rls
            FROM visible ORDER BY nspname, relname LIMIT %d""".formatted(MAX_RELATIONS);

    static final String COLUMNS = VISIBLE + """
            SELECT a.attrelid::bigint AS oid, a.attname::text AS name,
                   pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
            FROM pg_catalog.pg_attribute a JOIN visible v ON v.oid = a.attrelid
            WHERE a.attnum > 0 AND NOT a.attisdropped
              AND pg_catalog.has_column_privilege(a.attrelid, a.attnum, 'SELECT')
            ORDER BY a.attrelid, a.attnum""";

    static final String KEYS = VISIBLE + """
            SELECT con.conrelid::bigint AS oid, con.contype::text AS type,
                   (SELECT array_agg(a.attname::text ORDER BY k.ord)
                    FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum) AS columns,
                   rv.nspname::text AS ref_schema, rv.relname::text AS ref_name,
                   (SELECT array_agg(a.attname::text ORDER BY k.ord)
                    FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_catalog.pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum)
                       AS ref_columns
            FROM pg_catalog.pg_constraint con
            JOIN visible v ON v.oid = con.conrelid
            LEFT JOIN visible rv ON rv.oid = con.confrelid
            WHERE con.contype IN ('p', 'f')
            ORDER BY con.conrelid, con.conname""";

    /** The pg_stats view: PostgreSQL filters it by column privilege and row-level security. */
    static final String STATISTICS = """
            SELECT s.schemaname::text AS schema_name, s.tablename::text AS name, s.attname::text AS column_name,
                   s.null_frac::float8 AS null_frac, s.n_distinct::float8 AS n_distinct
            FROM pg_catalog.pg_stats s
            WHERE NOT s.inherited AND s.schemaname <> 'information_schema' AND s.schemaname NOT LIKE 'pg\\_%'""";

    /**
     * Estimates for relations under row-level security keyed on the tenant, for the tenant this transaction named: the
     * tenant's rows, and whole-table column figures (executor migration R__plan_statistics.sql says what they reveal
     * across tenants).
     */
    static final String TENANT_STATISTICS = """
            SELECT relid::bigint AS oid, column_name, tenant_rows_estimate, null_frac, n_distinct
            FROM plan_statistics()""";

    /** Every query grounding runs, for tests that prove what they read. */
    public static final List<String> QUERIES = List.of(RELATIONS, COLUMNS, KEYS, STATISTICS, TENANT_STATISTICS);

    private final TenantReads reads;
    private final List<String> offered;

    public SchemaGrounding(TenantReads reads, PlanConfig config) {
        this.reads = reads;
        this.offered = config.relations();
    }

    public SchemaInventory inventory(Person person) {
        return reads.inTenant(person, this::read).await().atMost(TenantReads.TIMEOUT);
    }

    /** Whether plan mode offers {@code relation} (a configured name, or a configured prefix ending in {@code *}). */
    boolean offers(String relation) {
        return offered.stream().anyMatch(name -> name.endsWith("*")
                ? relation.startsWith(name.substring(0, name.length() - 1))
                : relation.equals(name));
    }

    private Uni<SchemaInventory> read(SqlConnection sql) {
        return sql.preparedQuery(RELATIONS).execute().flatMap(relations -> sql.preparedQuery(COLUMNS).execute()
                .flatMap(columns -> sql.preparedQuery(KEYS).execute()
                        .flatMap(keys -> sql.preparedQuery(STATISTICS).execute()
                                .flatMap(stats -> sql.preparedQuery(TENANT_STATISTICS).execute()
                                        .map(tenant -> assemble(relations, columns, keys, stats, tenant))))));
    }

    private SchemaInventory assemble(RowSet<Row> relations, RowSet<Row> columns, RowSet<Row> keys,
            RowSet<Row> stats, RowSet<Row> tenantStats) {
        // plan_statistics(): one row per readable column of each relation it describes, the row estimate on each.
        Map<Long, Map<String, Row>> tenantStatistics = new HashMap<>();
        tenantStats.forEach(row -> tenantStatistics.computeIfAbsent(row.getLong("oid"), k -> new HashMap<>())
                .put(row.getString("column_name"), row));
        Map<String, Row> statistics = new HashMap<>();
        stats.forEach(row -> statistics.put(
                row.getString("schema_name") + "\u0000" + row.getString("name") + "\u0000"
                        + row.getString("column_name"),
                row));
        Map<Long, List<Row>> columnsOf = new HashMap<>();
        columns.forEach(row -> columnsOf.computeIfAbsent(row.getLong("oid"), k -> new ArrayList<>()).add(row));
        Map<Long, List<Row>> keysOf = new HashMap<>();
        keys.forEach(row -> keysOf.computeIfAbsent(row.getLong("oid"), k -> new ArrayList<>()).add(row));

        Map<Long, Table> tables = new LinkedHashMap<>();
        for (Row relation : relations) {
            long oid = relation.getLong("oid");
            String schema = relation.getString("schema_name");
            String name = relation.getString("name");
            if (!offers(name)) {
                continue;
            }
            // Under row-level security: the function's figures, or none (pg_stats shows nothing there anyway).
            boolean rls = relation.getBoolean("rls");
            Map<String, Row> described = tenantStatistics.get(oid);
            Scope scope = !rls ? Scope.TABLE : described != null ? Scope.TENANT : Scope.WITHHELD;
            List<Column> cols = new ArrayList<>();
            for (Row column : columnsOf.getOrDefault(oid, List.of())) {
                if (cols.size() == MAX_COLUMNS) {
                    break;
                }
                Row stat = switch (scope) {
                    case TABLE -> statistics.get(schema + "\u0000" + name + "\u0000" + column.getString("name"));
                    case TENANT -> described.get(column.getString("name"));
                    case WITHHELD -> null;
                };
                cols.add(new Column(column.getString("name"), column.getString("type"),
                        column.getBoolean("not_null"), stat == null ? null : stat.getDouble("null_frac"),
                        stat == null ? null : stat.getDouble("n_distinct")));
            }
            List<String> readable = cols.stream().map(Column::name).toList();
            List<String> primaryKey = List.of();
            List<String> foreignKeys = new ArrayList<>();
            for (Row key : keysOf.getOrDefault(oid, List.of())) {
                List<String> keyColumns = strings(key.getArrayOfStrings("columns"));
                if (!readable.containsAll(keyColumns)) {
                    continue;
                }
                if ("p".equals(key.getString("type"))) {
                    primaryKey = keyColumns;
                } else if (key.getString("ref_name") != null) {
                    foreignKeys.add("(%s) references %s.%s (%s)".formatted(String.join(", ", keyColumns),
                            key.getString("ref_schema"), key.getString("ref_name"),
                            String.join(", ", strings(key.getArrayOfStrings("ref_columns")))));
                }
            }
            double reltuples = relation.getDouble("reltuples");
            String kind = switch (relation.getString("kind")) {
                case "v" -> "view";
                case "m" -> "materialized view";
                case "f" -> "foreign table";
                case "p" -> "partitioned table";
                default -> "table";
            };
            // PostgreSQL 14+: -1 means never vacuumed or analysed. A view stores no rows and has no estimate. Under
            // row-level security reltuples counts every tenant's rows and is never used: the tenant's own estimate
            // comes from plan_statistics() (null: unknown), or none is given.
            Double estimate = switch (scope) {
                case TABLE -> reltuples < 0 || "view".equals(kind) ? null : reltuples;
                case TENANT -> described.values().stream().findFirst()
                        .map(row -> row.getDouble("tenant_rows_estimate")).orElse(null);
                case WITHHELD -> null;
            };
            tables.put(oid, new Table(schema, name, kind, estimate, scope, cols, primaryKey, foreignKeys));
        }
        return new SchemaInventory(List.copyOf(tables.values()));
    }

    private static List<String> strings(String[] values) {
        return values == null ? List.of() : List.of(values);
    }
}
