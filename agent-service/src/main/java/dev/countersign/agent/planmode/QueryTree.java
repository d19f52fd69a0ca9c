package dev.countersign.agent.planmode;

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
 * Every node type must be one of {@link #NODES}: a node this reader does not know (a new release's, an XML or JSON
 * expression, a table function) refuses the statement rather than hiding what it calls.
 * <p>
 * Limits: the tree text is PostgreSQL's internal format, which can change between major releases (read here for 16 and
 * 17; tested on 17). A field of an allowed node that this reader does not collect would be missed;
 * {@link StatementAnalysis} also reads the dependencies PostgreSQL records ({@code pg_depend}), which name every object
 * that is not built in that the tree references directly, and the plan role's revoked grants are the fence behind both.
 * Text inside the tree (aliases, constants) cannot hide an id or a node; at worst it adds one, which refuses the
 * statement.
 */
record QueryTree(Set<Long> relations, Set<Long> functions, Set<Long> operators, boolean recursive, boolean locksRows,
        boolean selectOnly, Set<String> unknownNodes, boolean xml, long expandedSize, Set<Long> namedCalls) {

    /**
     * The node types a plan statement may be built of: relations, joins, sub-selects, CTEs, set operations,
     * expressions, aggregates and windows. Every other node refuses it, among them XMLTABLE and JSON_TABLE
     * ({@code TABLEFUNC}), XML and SQL/JSON expressions, domains ({@code COERCETODOMAIN}) and TABLESAMPLE: what they
     * run is not named by the fields read here, and libxml2's XPath ignores PostgreSQL's statement timeout.
     */
    static final Set<String> NODES = Set.of("QUERY", "RANGETBLENTRY", "RTEPERMISSIONINFO", "ALIAS", "RANGETBLREF",
            "FROMEXPR", "JOINEXPR", "TARGETENTRY", "SORTGROUPCLAUSE", "GROUPINGSET", "WINDOWCLAUSE",
            "COMMONTABLEEXPR", "SETOPERATIONSTMT", "SUBLINK", "PARAM", "VAR", "CONST", "FUNCEXPR", "OPEXPR",
            "DISTINCTEXPR", "NULLIFEXPR", "SCALARARRAYOPEXPR", "BOOLEXPR", "CASEEXPR", "CASEWHEN", "CASETESTEXPR",
            "COALESCEEXPR", "MINMAXEXPR", "NULLTEST", "BOOLEANTEST", "AGGREF", "WINDOWFUNC", "GROUPINGFUNC",
            "SQLVALUEFUNCTION", "COLLATEEXPR", "RELABELTYPE", "COERCEVIAIO", "ARRAYCOERCEEXPR", "ARRAYEXPR", "ROWEXPR",
            "ROWCOMPAREEXPR", "FIELDSELECT", "SUBSCRIPTINGREF", "CONVERTROWTYPEEXPR", "RANGETBLFUNCTION");

    private static final Pattern RELATION = Pattern.compile(":relid (\\d+)");
    private static final Pattern FUNCTION = Pattern.compile(
            ":(?:funcid|aggfnoid|winfnoid|opfuncid|hashfuncid|negfuncid|startInRangeFunc|endInRangeFunc|tsmhandler)"
                    + " (\\d+)");
    private static final Pattern OPERATOR = Pattern.compile(":(?:opno|eqop|sortop) (\\d+)");
    /**
     * Functions the statement calls by name (a FuncExpr whose funcformat is 0, COERCE_EXPLICIT_CALL), aggregates and
     * window functions: these must be on the name allow-list; a cast function called by name (bpchar(x, n) pads like
     * lpad) is not a cast.
     */
    private static final Pattern NAMED_CALL = Pattern.compile(
            "\\{FUNCEXPR :funcid (\\d+) :funcresulttype \\d+ :funcretset \\w+ :funcvariadic \\w+ :funcformat 0 "
                    + "|:(?:aggfnoid|winfnoid) (\\d+)");
    private static final Pattern OPERATOR_LIST = Pattern.compile(":opnos \\(o((?: \\d+)*)\\)");
    private static final Pattern COMMAND = Pattern.compile(":commandType (\\d+)");
    private static final Pattern NODE = Pattern.compile("\\{([A-Z_]+)");
    /** A type field naming xml (142) or xml[] (143). */
    private static final Pattern XML = Pattern.compile(":\\w*type 14[23] ");
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
        Set<String> unknownNodes = new TreeSet<>();
        NODE.matcher(tree).results().map(node -> node.group(1)).filter(node -> !NODES.contains(node))
                .forEach(unknownNodes::add);
        boolean recursive = tree.contains(":hasRecursive true");
        return new QueryTree(ids(RELATION, tree), ids(FUNCTION, tree), operators, recursive,
                tree.contains(":hasForUpdate true") || tree.contains(":rowMarks ({"), selectOnly, unknownNodes,
                XML.matcher(tree).find(), recursive ? 0 : ExpandedSize.of(tree), namedCalls(tree));
    }

    private static Set<Long> namedCalls(String tree) {
        Set<Long> ids = new TreeSet<>();
        Matcher matcher = NAMED_CALL.matcher(tree);
        while (matcher.find()) {
            ids.add(Long.parseLong(matcher.group(1) != null ? matcher.group(1) : matcher.group(2)));
        }
        return ids;
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
