package dev.countersign.agent.plan;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The object ids in PostgreSQL's own analysis of a statement: the query tree it stores for a view
 * ({@code pg_rewrite.ev_action}, its node-tree text), after it has resolved every name, search path, quoting, alias,
 * CTE, sub-select, set operation and parenthesised join. Nothing here reads SQL text: the names are already object ids.
 * <p>
 * What is collected: every range-table relation ({@code :relid}), every function a node calls ({@code :funcid}, the
 * aggregate {@code :aggfnoid}, the window {@code :winfnoid}, an operator's {@code :opfuncid} and its hash and negator
 * functions, a window frame's in-range functions, a TABLESAMPLE handler) and every operator ({@code :opno}, a row
 * comparison's {@code :opnos}, a sort or group clause's {@code :eqop} and {@code :sortop}); whether any query level
 * recurses or locks rows; and whether every level is a SELECT.
 * <p>
 * Limits: the tree text is PostgreSQL's internal format, which can change between major releases (read here for 14 to
 * 17). A field this reader does not know is not collected, so {@link StatementAnalysis} also reads the dependencies
 * PostgreSQL records for the view ({@code pg_depend}), which cover every object that is not built in. A built-in
 * function reached through a field unknown here would be missed; the plan role's revoked grants are the fence behind
 * that. Text inside the tree (aliases, constants) cannot hide an id; at worst it adds one, and an unknown or foreign id
 * refuses the statement.
 */
record QueryTree(Set<Long> relations, Set<Long> functions, Set<Long> operators, boolean recursive, boolean locksRows,
        boolean selectOnly) {

    private static final Pattern RELATION = Pattern.compile(":relid (\\d+)");
    private static final Pattern FUNCTION = Pattern.compile(
            ":(?:funcid|aggfnoid|winfnoid|opfuncid|hashfuncid|negfuncid|startInRangeFunc|endInRangeFunc|tsmhandler)"
                    + " (\\d+)");
    private static final Pattern OPERATOR = Pattern.compile(":(?:opno|eqop|sortop) (\\d+)");
    private static final Pattern OPERATOR_LIST = Pattern.compile(":opnos \\(o((?: \\d+)*)\\)");
    private static final Pattern COMMAND = Pattern.compile(":commandType (\\d+)");
    /** CmdType CMD_SELECT. */
    private static final String SELECT = "1";

    static QueryTree read(String tree) {
        Set<Long> operators = ids(OPERATOR, tree);
        Matcher lists = OPERATOR_LIST.matcher(tree);
        while (lists.find()) {
            for (String id : lists.group(1).trim().split(" ")) {
                if (!id.isEmpty()) {
                    operators.add(Long.parseLong(id));
                }
            }
        }
        boolean selectOnly = COMMAND.matcher(tree).results().allMatch(command -> SELECT.equals(command.group(1)));
        return new QueryTree(ids(RELATION, tree), ids(FUNCTION, tree), operators,
                tree.contains(":hasRecursive true"),
                tree.contains(":hasForUpdate true") || tree.contains(":rowMarks ({"), selectOnly);
    }

    /** Every id the pattern captures, without 0 (PostgreSQL's "none"). */
    private static Set<Long> ids(Pattern pattern, String tree) {
        Set<Long> ids = new TreeSet<>();
        Matcher matcher = pattern.matcher(tree);
        while (matcher.find()) {
            long id = Long.parseLong(matcher.group(1));
            if (id != 0) {
                ids.add(id);
            }
        }
        return ids;
    }
}
