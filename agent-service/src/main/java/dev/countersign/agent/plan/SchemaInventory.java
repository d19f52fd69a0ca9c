package dev.countersign.agent.plan;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a plan run knows of the database: the relations the reader role may SELECT from, with the columns it may read,
 * their types and keys, and the planner's estimates. Read from the catalog for each run ({@link SchemaGrounding}).
 */
public record SchemaInventory(List<Table> tables) {

    public SchemaInventory {
        tables = List.copyOf(tables);
    }

    /**
     * @param rowEstimate
     *            {@code pg_class.reltuples}, or null when PostgreSQL has none (never vacuumed or analysed)
     * @param rowLevelSecurity
     *            the caller sees only its tenant's rows, so the estimate (the whole table's) is an upper bound
     */
    public record Table(String schema, String name, String kind, Double rowEstimate, boolean rowLevelSecurity,
            List<Column> columns, List<String> primaryKey, List<String> foreignKeys) {

        public Table {
            columns = List.copyOf(columns);
            primaryKey = List.copyOf(primaryKey);
            foreignKeys = List.copyOf(foreignKeys);
        }

        String qualified() {
            return schema + "." + name;
        }

        Optional<Column> column(String name) {
            return columns.stream().filter(c -> c.name().equals(name)).findFirst();
        }
    }

    /**
     * @param nullFraction
     *            {@code pg_stats.null_frac}, or null when no statistics are visible
     * @param distinct
     *            {@code pg_stats.n_distinct} as PostgreSQL stores it (negative: minus a fraction of the rows), or null
     */
    public record Column(String name, String type, boolean notNull, Double nullFraction, Double distinct) {
    }

    /**
     * The relation a name refers to: schema-qualified names match exactly; an unqualified one matches a relation of
     * that name in {@code public}, else the only relation of that name. Unquoted names arrive folded to lower case.
     */
    Optional<Table> find(String schema, String name) {
        if (schema != null) {
            return tables.stream().filter(t -> t.schema().equals(schema) && t.name().equals(name)).findFirst();
        }
        List<Table> named = tables.stream().filter(t -> t.name().equals(name)).toList();
        return named.stream().filter(t -> t.schema().equals("public")).findFirst()
                .or(() -> named.size() == 1 ? Optional.of(named.get(0)) : Optional.empty());
    }

    /** Whether {@code qualified} ({@code schema.name}) is one of the inventory's relations. */
    boolean lists(String qualified) {
        return tables.stream().anyMatch(table -> table.qualified().equals(qualified));
    }

    public int sizeUnknown() {
        return (int) tables.stream().filter(t -> t.rowEstimate() == null && !"view".equals(t.kind())).count();
    }

    /** The inventory as the model reads it: every number that is an estimate says so. */
    String render() {
        if (tables.isEmpty()) {
            return "(no relation is visible to this run: there is nothing to draft a statement against)";
        }
        StringBuilder text = new StringBuilder();
        for (Table table : tables) {
            text.append("relation ").append(table.qualified());
            if (!"table".equals(table.kind())) {
                text.append(" (").append(table.kind()).append(')');
            }
            text.append(" - rows: ").append(rows(table)).append('\n');
            for (Column column : table.columns()) {
                text.append("  ").append(column.name()).append(' ').append(column.type())
                        .append(column.notNull() ? " not null" : "");
                String stats = statistics(table, column);
                if (!stats.isEmpty()) {
                    text.append(" [").append(stats).append(']');
                }
                text.append('\n');
            }
            if (!table.primaryKey().isEmpty()) {
                text.append("  primary key (").append(String.join(", ", table.primaryKey())).append(")\n");
            }
            table.foreignKeys().forEach(fk -> text.append("  foreign key ").append(fk).append('\n'));
            if (table.rowLevelSecurity() && table.columns().stream().allMatch(c -> c.nullFraction() == null)) {
                text.append("  (no column statistics: PostgreSQL withholds them under row-level security)\n");
            }
        }
        return text.toString();
    }

    private static String rows(Table table) {
        if ("view".equals(table.kind())) {
            return "no estimate (a view stores no rows)";
        }
        if (table.rowLevelSecurity()) {
            return "UNKNOWN (withheld: under row-level security the estimate would count other tenants' rows; this is"
                    + " NOT an empty table)";
        }
        if (table.rowEstimate() == null) {
            return "UNKNOWN (never analysed: this is NOT an empty table, and nothing here says it is small)";
        }
        return "about " + Math.round(table.rowEstimate()) + " (planner estimate, not a count)";
    }

    /**
     * null_frac and n_distinct, both estimates. A negative n_distinct is minus the fraction of rows that are distinct;
     * it is turned into a number only against a row estimate, and then marked derived.
     */
    static String statistics(Table table, Column column) {
        if (column.nullFraction() == null && column.distinct() == null) {
            return "";
        }
        StringBuilder stats = new StringBuilder();
        if (column.nullFraction() != null) {
            stats.append("nulls ~").append(percent(column.nullFraction())).append(" (estimate)");
        }
        if (column.distinct() != null) {
            if (!stats.isEmpty()) {
                stats.append("; ");
            }
            double distinct = column.distinct();
            if (distinct == 0) {
                // PostgreSQL stores 0 when it could not tell (all values null, or a type without equality): not zero.
                stats.append("distinct values unknown (PostgreSQL could not estimate them)");
            } else if (distinct > 0) {
                stats.append("distinct values ~").append(Math.round(distinct)).append(" (estimate)");
            } else if (table.rowEstimate() != null) {
                stats.append("distinct values ~").append(Math.round(-distinct * table.rowEstimate()))
                        .append(" (estimate, derived: ").append(percent(-distinct))
                        .append(" of the row estimate)");
            } else {
                stats.append("distinct values: ").append(percent(-distinct))
                        .append(" of the rows (estimate; the row count is unknown)");
            }
        }
        return stats.toString();
    }

    private static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }
}
