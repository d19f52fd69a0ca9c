package dev.countersign.agent.plan;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.countersign.agent.plan.SqlText.Kind;
import dev.countersign.agent.plan.SqlText.Token;
import dev.countersign.contracts.events.PlanStatementDrafted.Validation;

/**
 * Checks a statement's names against the run's schema inventory, lexically. Relations are read after FROM, JOIN and the
 * commas of a FROM list (FROM ONLY, LATERAL, schema-qualified, quoted names with doubled quotes, aliases with or
 * without AS, CTE names); a qualified column ({@code alias.col}, {@code table.col}) is checked against its table; an
 * unqualified name that is not a keyword, a function, a type, an output alias or a CTE's column must be a column of one
 * of the tables the statement names.
 */
final class IdentifierCheck {

    static final String LIMITS = "Checked by a lexical reading against this run's inventory, not by PostgreSQL: relation"
            + " names after FROM, JOIN and FROM-list commas, qualified columns against their table, unqualified names"
            + " against the columns of every table the statement names (not per scope). Unqualified names are not"
            + " checked when the statement names a relation the inventory does not know. A clean check is not proof"
            + " that the statement runs.";

    /** Words that are never a column or relation of the user's schema in the position they appear. */
    private static final Set<String> KEYWORDS = Set.of("select", "from", "where", "and", "or", "not", "as", "on",
            "join", "inner", "left", "right", "full", "outer", "cross", "natural", "using", "group", "by", "order",
            "having", "limit", "offset", "fetch", "first", "next", "rows", "row", "only", "with", "recursive",
            "union", "all", "intersect", "except", "distinct", "case", "when", "then", "else", "end", "is", "null",
            "true", "false", "in", "exists", "between", "like", "ilike", "similar", "to", "escape", "any", "some",
            "asc", "desc", "nulls", "last", "over", "partition", "range", "groups", "preceding", "following",
            "unbounded", "current", "window", "filter", "within", "lateral", "materialized", "interval", "date",
            "time", "timestamp", "timestamptz", "zone", "at", "local", "current_date", "current_time",
            "current_timestamp", "localtime", "localtimestamp", "current_user", "session_user", "current_role",
            "current_schema", "current_catalog", "user", "cast", "numeric", "decimal", "integer", "int", "bigint",
            "smallint", "real", "double", "precision", "text", "varchar", "char", "character", "varying", "boolean",
            "uuid", "jsonb", "json", "year", "month", "day", "hour", "minute", "second", "week", "quarter", "dow",
            "doy", "epoch", "isodow", "isoyear", "decade", "century", "millennium", "milliseconds", "microseconds",
            "ties", "tablesample", "values", "array", "collate", "ordinality", "both", "leading", "trailing",
            "placing", "for", "overlaps", "isnull", "notnull", "unknown", "default", "of", "no", "others",
            "exclude", "rollup", "cube", "sets", "grouping", "mode", "percentile_cont");

    /** Words that end a FROM list at the current level. */
    private static final Set<String> END_OF_FROM = Set.of("where", "group", "having", "order", "limit", "offset",
            "window", "union", "intersect", "except", "on", "using", "returning", "fetch", "for", "select");

    /** Words that cannot be an alias right after a relation name. */
    private static final Set<String> NOT_ALIAS = Set.of("where", "join", "inner", "left", "right", "full", "cross",
            "natural", "on", "using", "group", "order", "limit", "having", "window", "union", "except", "intersect",
            "offset", "fetch", "for", "tablesample", "lateral", "with", "returning");

    private record Ref(String schema, String name, String display, SchemaInventory.Table table, boolean cte) {
    }

    private IdentifierCheck() {
    }

    static Validation check(String sql, SchemaInventory inventory) {
        SqlText.Reading reading = SqlText.read(sql);
        if (!reading.readable()) {
            return new Validation(List.of(), List.of(), List.of(),
                    "Not checked: " + reading.unreadable() + ". " + LIMITS);
        }
        List<Token> tokens = new ArrayList<>();
        SqlText.statements(reading.tokens()).forEach(tokens::addAll);
        return new IdentifierCheck.Run(tokens, inventory).check();
    }

    private static final class Run {

        private final List<Token> tokens;
        private final SchemaInventory inventory;
        private final Set<String> ctes = new HashSet<>();
        private final Map<String, Ref> aliases = new HashMap<>();
        private final Set<String> knownNames = new HashSet<>();
        private final List<Ref> refs = new ArrayList<>();
        private final Set<Integer> consumed = new HashSet<>();

        Run(List<Token> tokens, SchemaInventory inventory) {
            this.tokens = tokens;
            this.inventory = inventory;
        }

        private Token at(int i) {
            return i >= 0 && i < tokens.size() ? tokens.get(i) : new Token(Kind.SYMBOL, "");
        }

        private boolean keyword(Token token) {
            return token.kind() == Kind.WORD && KEYWORDS.contains(token.value());
        }

        Validation check() {
            collectCtes();
            collectRelations();
            collectAliases();
            Set<String> unknownTables = new LinkedHashSet<>();
            Set<String> tables = new LinkedHashSet<>();
            for (Ref ref : refs) {
                if (!ref.cte()) {
                    tables.add(ref.display());
                    if (ref.table() == null) {
                        unknownTables.add(ref.display());
                    }
                }
            }
            Set<String> columnsInScope = new HashSet<>();
            refs.stream().filter(r -> r.table() != null)
                    .forEach(r -> r.table().columns().forEach(c -> columnsInScope.add(c.name())));
            boolean unqualifiedCheckable = unknownTables.isEmpty();
            Set<String> unknownColumns = new LinkedHashSet<>();
            for (int i = 0; i < tokens.size(); i++) {
                Token token = tokens.get(i);
                if (consumed.contains(i) || !token.isName() || keyword(token) || at(i + 1).isSymbol("(")
                        || at(i - 1).isSymbol("::") || at(i - 1).isWord("collate") || at(i - 1).isSymbol(".")) {
                    continue;
                }
                if (at(i + 1).isSymbol(".")) {
                    i = qualified(i, unknownColumns);
                    continue;
                }
                String name = token.value();
                if (knownNames.contains(name) || aliases.containsKey(name) || ctes.contains(name)
                        || columnsInScope.contains(name) || !unqualifiedCheckable) {
                    continue;
                }
                unknownColumns.add(token.display());
            }
            return new Validation(List.copyOf(tables), List.copyOf(unknownTables), List.copyOf(unknownColumns),
                    LIMITS);
        }

        /** {@code q.c} or {@code s.t.c}; returns the index of the last token read. */
        private int qualified(int i, Set<String> unknownColumns) {
            List<Token> parts = new ArrayList<>();
            int j = i;
            parts.add(at(j));
            while (at(j + 1).isSymbol(".") && (at(j + 2).isName() || at(j + 2).isSymbol("*"))) {
                parts.add(at(j + 2));
                j += 2;
            }
            if (at(j + 1).isSymbol("(") || parts.size() < 2) {
                return j;
            }
            Token column = parts.get(parts.size() - 1);
            Optional<SchemaInventory.Table> table;
            String qualifier;
            if (parts.size() >= 3) {
                qualifier = parts.get(parts.size() - 3).display() + "." + parts.get(parts.size() - 2).display();
                table = inventory.find(parts.get(parts.size() - 3).value(), parts.get(parts.size() - 2).value());
                if (table.isEmpty()) {
                    unknownColumns.add(qualifier + "." + column.display());
                    return j;
                }
            } else {
                Token q = parts.get(0);
                qualifier = q.display();
                Ref ref = aliases.get(q.value());
                if (ref == null) {
                    ref = refs.stream().filter(r -> r.name().equals(q.value()) && !r.cte()).findFirst().orElse(null);
                }
                if (ref == null) {
                    if (!ctes.contains(q.value()) && !knownNames.contains(q.value())) {
                        unknownColumns.add(qualifier + "." + column.display() + " (no relation or alias " + qualifier
                                + " in the statement)");
                    }
                    return j;
                }
                table = Optional.ofNullable(ref.table());
            }
            if (table.isPresent() && column.isName() && table.get().column(column.value()).isEmpty()) {
                unknownColumns.add(qualifier + "." + column.display());
            }
            return j;
        }

        private void collectCtes() {
            for (int i = 0; i < tokens.size(); i++) {
                if (!tokens.get(i).isWord("with")) {
                    continue;
                }
                int j = i + 1;
                if (at(j).isWord("recursive")) {
                    j++;
                }
                while (at(j).isName()) {
                    ctes.add(at(j).value());
                    consumed.add(j);
                    j++;
                    if (at(j).isSymbol("(")) {
                        j = names(j, knownNames);
                    }
                    if (!at(j).isWord("as")) {
                        break;
                    }
                    j++;
                    if (at(j).isWord("not")) {
                        j++;
                    }
                    if (at(j).isWord("materialized")) {
                        j++;
                    }
                    if (!at(j).isSymbol("(")) {
                        break;
                    }
                    j = matching(j) + 1;
                    if (!at(j).isSymbol(",")) {
                        break;
                    }
                    j++;
                }
            }
        }

        /** Reads a parenthesised name list starting at {@code open} into {@code into}; returns the index after it. */
        private int names(int open, Set<String> into) {
            int j = open + 1;
            while (j < tokens.size() && !at(j).isSymbol(")")) {
                if (at(j).isName()) {
                    into.add(at(j).value());
                    consumed.add(j);
                }
                j++;
            }
            return j + 1;
        }

        private int matching(int open) {
            int depth = 0;
            for (int j = open; j < tokens.size(); j++) {
                if (at(j).isSymbol("(")) {
                    depth++;
                } else if (at(j).isSymbol(")") && --depth == 0) {
                    return j;
                }
            }
            return tokens.size();
        }

        private static final class Frame {

            boolean sawSelect;
            boolean inFrom;
            boolean expectRelation;
        }

        private void collectRelations() {
            Deque<Frame> frames = new ArrayDeque<>();
            frames.push(new Frame());
            for (int i = 0; i < tokens.size(); i++) {
                Token token = tokens.get(i);
                Frame frame = frames.peek();
                if (frame.expectRelation) {
                    if (token.isWord("only") || token.isWord("lateral")) {
                        continue;
                    }
                    frame.expectRelation = false;
                    if (token.isName() && !keyword(token)) {
                        i = relation(i);
                        continue;
                    }
                }
                if (token.isSymbol("(")) {
                    frames.push(new Frame());
                } else if (token.isSymbol(")")) {
                    if (frames.size() > 1) {
                        frames.pop();
                    }
                } else if (token.isWord("select")) {
                    frame.sawSelect = true;
                    frame.inFrom = false;
                } else if (token.isWord("from") && frame.sawSelect && !at(i - 1).isWord("distinct")) {
                    frame.inFrom = true;
                    frame.expectRelation = true;
                } else if (token.isWord("join")) {
                    frame.inFrom = true;
                    frame.expectRelation = true;
                } else if (token.kind() == Kind.WORD && END_OF_FROM.contains(token.value())) {
                    frame.inFrom = false;
                } else if (token.isSymbol(",") && frame.inFrom) {
                    frame.expectRelation = true;
                }
            }
        }

        /** A relation name (or a function in FROM) at {@code i}, and its alias; returns the last index read. */
        private int relation(int i) {
            List<Token> parts = new ArrayList<>();
            int j = i;
            parts.add(at(j));
            consumed.add(j);
            while (at(j + 1).isSymbol(".") && at(j + 2).isName()) {
                parts.add(at(j + 2));
                consumed.add(j + 2);
                j += 2;
            }
            Ref ref;
            if (at(j + 1).isSymbol("(")) {
                // A function in FROM (generate_series(...)): its name is its column's name unless an alias says else.
                knownNames.add(parts.get(parts.size() - 1).value());
                return j;
            }
            Token name = parts.get(parts.size() - 1);
            String schema = parts.size() >= 2 ? parts.get(parts.size() - 2).value() : null;
            String display = String.join(".", parts.stream().map(Token::display).toList());
            if (schema == null && ctes.contains(name.value())) {
                ref = new Ref(null, name.value(), display, null, true);
            } else {
                ref = new Ref(schema, name.value(), display, inventory.find(schema, name.value()).orElse(null),
                        false);
            }
            refs.add(ref);
            int k = j + 1;
            if (at(k).isWord("as")) {
                k++;
            }
            Token alias = at(k);
            if (alias.isName() && !(alias.kind() == Kind.WORD && (NOT_ALIAS.contains(alias.value())
                    || KEYWORDS.contains(alias.value())))) {
                aliases.put(alias.value(), ref);
                consumed.add(k);
                if (at(k + 1).isSymbol("(")) {
                    return names(k + 1, knownNames) - 1;
                }
                return k;
            }
            return j;
        }

        /** Output and derived-table aliases: after AS, or right after an expression's end. */
        private void collectAliases() {
            for (int i = 0; i < tokens.size(); i++) {
                Token token = tokens.get(i);
                if (consumed.contains(i) || !token.isName() || keyword(token)) {
                    continue;
                }
                Token previous = at(i - 1);
                boolean afterAs = previous.isWord("as");
                boolean afterExpression = previous.isSymbol(")") || previous.kind() == Kind.STRING
                        || previous.kind() == Kind.NUMBER || previous.isWord("end")
                        || (previous.isName() && !keyword(previous)) || at(i - 2).isSymbol("::");
                if ((afterAs || afterExpression) && !at(i + 1).isSymbol("(") && !at(i + 1).isSymbol(".")) {
                    knownNames.add(token.value());
                    consumed.add(i);
                    if (at(i + 1).isSymbol("(") && afterAs) {
                        names(i + 1, knownNames);
                    }
                } else if (previous.isWord("window") || previous.isWord("over")) {
                    knownNames.add(token.value());
                    consumed.add(i);
                }
            }
        }
    }
}
