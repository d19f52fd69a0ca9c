package dev.countersign.agent.planmode;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How large a statement's expressions become once PostgreSQL's planner has pulled its sub-selects and CTEs up into the
 * levels that use them: a column defined as {@code v || v} over a column defined as {@code v || v} is copied into each
 * use, so twenty such levels make one expression of a million calls. PostgreSQL evaluates one row's expression without
 * checking for cancellation, so such a statement outlives its statement timeout (measured: ten seconds under a
 * one-second timeout at twenty levels; twice as long per level).
 * <p>
 * Counted on the stored query tree ({@code pg_rewrite.ev_action}): every expression node counts one, a column of a
 * sub-select, CTE, join or set operation counts what its (largest) definition counts, and a whole-row reference counts
 * every column. The result is the largest total over any one query level, every level counted (sub-selects in
 * expressions too): target list, join conditions, WHERE, HAVING, LIMIT, and the arguments of functions and VALUES in
 * FROM. The planner's own cost grows with the same copies (measured: a twenty-level chain took 6.5 s and 1.4 GB to
 * plan), so the count bounds planning as much as evaluation.
 * <p>
 * Limits: a sub-select the planner does not pull up (it has aggregates, LIMIT, DISTINCT...) is computed once per row
 * and counted as if it were pulled up, so some legitimate statements count more than they cost.
 */
final class ExpandedSize {

    /** A parsed node: its tag and fields, in order. */
    record Node(String tag, Map<String, Object> fields) {

        Object get(String field) {
            return fields.get(field);
        }

        long number(String field) {
            Object value = fields.get(field);
            return value instanceof String text && !text.isEmpty() && text.matches("-?\\d+") ? Long.parseLong(text) : 0;
        }
    }

    private final Map<Node, List<Long>> columnSizes = new IdentityHashMap<>();
    private long largest;

    private ExpandedSize() {
    }

    /** The largest expanded size of any query level's expressions in {@code tree}. */
    static long of(String tree) {
        Object root = new Reader(tree).value();
        ExpandedSize sizes = new ExpandedSize();
        for (Node query : queries(root)) {
            sizes.queryLevel(query, new ArrayDeque<>());
        }
        return sizes.largest;
    }

    /** The Query nodes in the tree (the tree is a list of one). */
    private static List<Node> queries(Object root) {
        List<Node> queries = new ArrayList<>();
        if (root instanceof Node node && "QUERY".equals(node.tag())) {
            queries.add(node);
        } else if (root instanceof List<?> list) {
            list.forEach(element -> queries.addAll(queries(element)));
        }
        return queries;
    }

    /**
     * Counts one query level's expressions (target list, join conditions, WHERE, HAVING, LIMIT, and the arguments of
     * functions and VALUES lists in FROM) and, through {@link #size}, every query nested in them; keeps the largest.
     */
    private void queryLevel(Node query, Deque<Node> outer) {
        outer.push(query);
        try {
            long level = saturated(size(query.get("targetList"), outer), size(query.get("jointree"), outer));
            level = saturated(level, size(query.get("havingQual"), outer));
            level = saturated(level, saturated(size(query.get("limitCount"), outer),
                    size(query.get("limitOffset"), outer)));
            for (Node rte : nodes(query.get("rtable"))) {
                level = saturated(level, saturated(size(rte.get("functions"), outer),
                        size(rte.get("values_lists"), outer)));
                if (rte.get("subquery") instanceof Node subquery) {
                    queryLevel(subquery, outer);
                }
            }
            for (Node cte : nodes(query.get("cteList"))) {
                if (cte.get("ctequery") instanceof Node cteQuery) {
                    queryLevel(cteQuery, outer);
                }
            }
            largest = Math.max(largest, level);
        } finally {
            outer.pop();
        }
    }

    /** The expanded size of an expression (or list of them) in the context of the queries {@code outer}. */
    private long size(Object value, Deque<Node> outer) {
        if (value instanceof List<?> list) {
            long total = 0;
            for (Object element : list) {
                total = saturated(total, size(element, outer));
            }
            return total;
        }
        if (!(value instanceof Node node)) {
            return 0;
        }
        switch (node.tag()) {
            case "VAR" :
                return column(node, outer);
            case "QUERY" :
                // A query nested in an expression (a sub-select) is a level of its own, counted where it stands.
                queryLevel(node, outer);
                return 1;
            case "RANGETBLENTRY" :
                return 1;
            default :
                long total = 1;
                for (Object field : node.fields().values()) {
                    total = saturated(total, size(field, outer));
                }
                return total;
        }
    }

    /** A column reference counts what the column's definition counts, through sub-selects, CTEs and joins. */
    private long column(Node variable, Deque<Node> outer) {
        int levelsUp = (int) variable.number("varlevelsup");
        List<Node> levels = new ArrayList<>(outer);
        if (levelsUp >= levels.size()) {
            return 1;
        }
        Node query = levels.get(levelsUp);
        List<Node> rtable = nodes(query.get("rtable"));
        int index = (int) variable.number("varno") - 1;
        // -1 is a whole-row reference (varattno 0): the planner expands it into every column.
        int attribute = (int) variable.number("varattno") - 1;
        if (index < 0 || index >= rtable.size() || attribute < -1) {
            return 1;
        }
        Node rte = rtable.get(index);
        Deque<Node> from = new ArrayDeque<>(levels.subList(levelsUp, levels.size()));
        if (rte.get("subquery") instanceof Node subquery) {
            return nth(columns(subquery, from), attribute);
        }
        if ("2".equals(rte.get("rtekind")) && rte.get("joinaliasvars") instanceof List<?> aliases) {
            // A whole-row reference to a join is every column of it.
            return attribute < 0
                    ? Math.max(1, size(aliases, from))
                    : attribute < aliases.size() ? size(aliases.get(attribute), from) : 1;
        }
        if ("6".equals(rte.get("rtekind"))) { // RTE_CTE
            Node cte = cte(rte, levels, levelsUp);
            if (cte != null && cte.get("ctequery") instanceof Node cteQuery) {
                int cteLevel = levelsUp + (int) rte.number("ctelevelsup");
                return nth(columns(cteQuery, new ArrayDeque<>(levels.subList(cteLevel, levels.size()))), attribute);
            }
        }
        return 1;
    }

    /** Each output column's expanded size, computed once per query. */
    private List<Long> columns(Node query, Deque<Node> outer) {
        List<Long> known = columnSizes.get(query);
        if (known != null) {
            return known;
        }
        // Guards against a reference cycle (a recursive CTE, refused elsewhere): counted as 1 while in progress.
        columnSizes.put(query, List.of());
        outer.push(query);
        List<Long> sizes = new ArrayList<>();
        for (Node entry : nodes(query.get("targetList"))) {
            sizes.add(size(entry.get("expr"), outer));
        }
        if (query.get("setOperations") instanceof Node) {
            // A UNION's columns name its first branch; each output column is as large as the largest branch's.
            for (Node rte : nodes(query.get("rtable"))) {
                if (rte.get("subquery") instanceof Node branch && branch != query) {
                    List<Long> branchSizes = columns(branch, outer);
                    for (int i = 0; i < sizes.size() && i < branchSizes.size(); i++) {
                        sizes.set(i, Math.max(sizes.get(i), branchSizes.get(i)));
                    }
                }
            }
        }
        outer.pop();
        columnSizes.put(query, sizes);
        return sizes;
    }

    private static Node cte(Node rte, List<Node> levels, int levelsUp) {
        int level = levelsUp + (int) rte.number("ctelevelsup");
        if (level >= levels.size()) {
            return null;
        }
        for (Node cte : nodes(levels.get(level).get("cteList"))) {
            if (String.valueOf(cte.get("ctename")).equals(String.valueOf(rte.get("ctename")))) {
                return cte;
            }
        }
        return null;
    }

    /** Column {@code index}'s size, or for -1 (a whole row) the sum of all of them. */
    private static long nth(List<Long> sizes, int index) {
        if (index == -1) {
            return Math.max(1, sizes.stream().reduce(0L, ExpandedSize::saturated));
        }
        return index < sizes.size() ? sizes.get(index) : 1;
    }

    private static List<Node> nodes(Object value) {
        List<Node> nodes = new ArrayList<>();
        if (value instanceof List<?> list) {
            list.forEach(element -> {
                if (element instanceof Node node) {
                    nodes.add(node);
                }
            });
        }
        return nodes;
    }

    private static long saturated(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /** PostgreSQL's node-tree text, read as its own reader (pg_strtok) reads it. */
    private static final class Reader {

        private final String text;
        private int at;

        Reader(String text) {
            this.text = text;
        }

        Object value() {
            String token = token();
            if (token == null || token.equals("<>")) {
                return null;
            }
            if (token.equals("{")) {
                return node();
            }
            if (token.equals("(")) {
                List<Object> list = new ArrayList<>();
                String next;
                while ((next = peek()) != null && !next.equals(")")) {
                    Object element = value();
                    if (!(element instanceof String marker && list.isEmpty()
                            && (marker.equals("i") || marker.equals("o") || marker.equals("b")
                                    || marker.equals("x")))) {
                        list.add(element);
                    }
                }
                token();
                return list;
            }
            return token;
        }

        private Node node() {
            String tag = token();
            Map<String, Object> fields = new LinkedHashMap<>();
            String next;
            while ((next = peek()) != null && !next.equals("}")) {
                String field = token();
                if (!field.startsWith(":")) {
                    continue;
                }
                String name = field.substring(1);
                if (name.equals("constvalue")) {
                    // A length and the datum's bytes in brackets, or <> for null: not a node.
                    if (!"<>".equals(token())) {
                        String part;
                        while ((part = token()) != null && !part.equals("]")) {
                            // skip the bytes
                        }
                    }
                    continue;
                }
                fields.put(name, value());
            }
            token();
            return new Node(tag, fields);
        }

        private String peek() {
            int saved = at;
            String token = token();
            at = saved;
            return token;
        }

        private String token() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
            if (at >= text.length()) {
                return null;
            }
            char first = text.charAt(at);
            if ("(){}".indexOf(first) >= 0) {
                at++;
                return String.valueOf(first);
            }
            StringBuilder token = new StringBuilder();
            while (at < text.length()) {
                char c = text.charAt(at);
                if (Character.isWhitespace(c) || "(){}".indexOf(c) >= 0) {
                    break;
                }
                if (c == '\\' && at + 1 < text.length()) {
                    token.append(text.charAt(at + 1));
                    at += 2;
                    continue;
                }
                token.append(c);
                at++;
            }
            return token.toString();
        }
    }
}
