package dev.countersign.agent.planmode;

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

    /** Whose rows a relation's estimates describe. */
    public enum Scope {
        /**
         * No row-level security: the whole table, which the caller reads whole ({@code pg_class}, {@code pg_stats}).
         */
        TABLE,
        /**
         * Row-level security keyed on the tenant: the row estimate is the caller's tenant's rows only, the column
         * statistics whole-table figures ({@code plan_statistics()}, executor migration R__plan_statistics.sql).
         */
        TENANT,
        /**
         * Row-level security that {@code plan_statistics()} does not describe (another policy than the tenant rule): no
         * estimate, since it could count rows the caller may not see.
         */
        WITHHELD
    }

    /**
     * @param rowEstimate
     *            for {@link Scope#TABLE} {@code pg_class.reltuples}, for {@link Scope#TENANT} the planner's estimate of
     *            the tenant's own rows; null when there is none (never analysed, or not estimable)
     * @param scope
     *            whose rows {@code rowEstimate} counts
     */
    public record Table(String schema, String name, String kind, Double rowEstimate, Scope scope,
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
     *            {@code null_frac} (the whole table's, also under {@link Scope#TENANT}), or null when none is given
     * @param distinct
     *            {@code n_distinct} as PostgreSQL stores it (negative: minus a fraction of the rows), or null; under
     *            {@link Scope#TENANT} a positive count is capped at the tenant's row estimate
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
            if (table.scope() == Scope.WITHHELD) {
                text.append("  (no column statistics: PostgreSQL withholds them under row-level security)\n");
            } else if (table.scope() == Scope.TENANT && table.rowEstimate() != null) {
                text.append("  (column statistics are estimates over all tenants' rows of this table; the row"
                        + " estimate is your tenant's own)\n");
            }
        }
        return text.toString();
    }

    private static String rows(Table table) {
        if ("view".equals(table.kind())) {
            return "no estimate (a view stores no rows)";
        }
        return switch (table.scope()) {
            case WITHHELD -> "UNKNOWN (withheld: under this table's row-level security an estimate could count rows"
                    + " you may not see; this is NOT an empty table)";
            case TENANT -> table.rowEstimate() == null
                    ? "UNKNOWN (no statistics for your tenant's rows: this is NOT an empty table, and nothing here"
                            + " says it is small)"
                    : "about " + Math.round(table.rowEstimate())
                            + " of your tenant's rows (planner estimate, not a count)";
            case TABLE -> table.rowEstimate() == null
                    ? "UNKNOWN (never analysed: this is NOT an empty table, and nothing here says it is small)"
                    : "about " + Math.round(table.rowEstimate()) + " (planner estimate, not a count)";
        };
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
