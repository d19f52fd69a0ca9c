package dev.countersign.agent.planmode;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the values a statement builds from many rows would take in, read from PostgreSQL's plan of it ({@code EXPLAIN
 * (VERBOSE, FORMAT JSON)}, which plans and runs nothing): {@code string_agg} and {@code array_agg} each hold one
 * growing value in the backend's memory, which neither {@code work_mem} nor {@code temp_file_limit} bounds (measured:
 * 488 to 920 MB for a {@code string_agg} over a three-way cross join of 3,000 rows). Sorts, hashes and materialised
 * rows spill to disk under {@code work_mem} and are bounded there; a value built per row is bounded by its row's width.
 * <p>
 * Each such value's input is estimated as the rows PostgreSQL expects its plan node to consume times their width in
 * bytes, per function call: the rows of the outer input of the node that computes the aggregate or window function.
 * ({@code ARRAY(sub-select)} builds such a value too, but the plan shows it only as a sub-plan: {@link QueryTree} finds
 * it and the analysis refuses it.) A row carrying a value that another growing value built below it (a sub-select's
 * {@code string_agg} aggregated again) is counted as wide as that value's input, since the planner's width for it is a
 * guess. The estimate is the sum over every such call in the plan.
 * <p>
 * Limits: these are the planner's estimates, from the statistics of the last ANALYZE (autovacuum keeps them current); a
 * tenant whose rows grew a lot since then is under-estimated by as much. The width of a computed text is the planner's
 * too. A nested growing value is charged to every row above it, which over-estimates (some legitimate statements are
 * refused). Functions that are not growing aggregates are not looked at: the allow-list of
 * {@link StatementAnalysis#FUNCTIONS} has no padding or repeating function.
 */
final class GrowingValues {

    /** A call that builds one value from many rows, as EXPLAIN VERBOSE prints it. */
    private static final Pattern GROWING_CALL = Pattern.compile("\\b(string_agg|array_agg)\\(");
    /** The plan nodes that compute aggregate and window functions. */
    private static final java.util.Set<String> AGGREGATING = java.util.Set.of("Aggregate", "WindowAgg");

    /**
     * What the growing values of one plan take in, by the planner's estimate.
     *
     * @param rows
     *            the rows the largest of them consumes
     * @param bytes
     *            the bytes all of them consume together
     */
    record Estimate(double rows, double bytes) {
    }

    private double rows;
    private double bytes;

    private GrowingValues() {
    }

    /** The estimate for the plan {@code explain} ({@code EXPLAIN (FORMAT JSON)}'s one value: an array of one plan). */
    static Estimate of(JsonNode explain) {
        GrowingValues values = new GrowingValues();
        JsonNode plan = explain.path(0).path("Plan");
        if (plan.isObject()) {
            values.visit(plan);
        }
        return new Estimate(values.rows, values.bytes);
    }

    /** Visits {@code node} and what runs under it; answers the largest value a growing call under it may build. */
    private double visit(JsonNode node) {
        List<JsonNode> children = new ArrayList<>();
        node.path("Plans").forEach(children::add);
        double nested = 0;
        for (JsonNode child : children) {
            nested = Math.max(nested, visit(child));
        }
        Map<String, Integer> calls = calls(node);
        double built = 0;
        // Only an aggregating node computes an aggregate; a node above it (a Sort, a Limit) repeats its text in Output.
        int aggregates = AGGREGATING.contains(node.path("Node Type").asText())
                ? calls.getOrDefault("string_agg", 0) + calls.getOrDefault("array_agg", 0)
                : 0;
        if (aggregates > 0) {
            for (JsonNode child : children) {
                if ("Outer".equals(child.path("Parent Relationship").asText())) {
                    built = Math.max(built, consume(child, nested, aggregates));
                }
            }
        }
        return Math.max(nested, built);
    }

    /** {@code calls} calls each consume {@code input}'s rows; answers the value one of them builds. */
    private double consume(JsonNode input, double nested, int calls) {
        double inputRows = input.path("Plan Rows").asDouble();
        double width = Math.max(input.path("Plan Width").asDouble(), nested);
        double value = inputRows * width;
        rows = Math.max(rows, inputRows);
        bytes += value * calls;
        return value;
    }

    /** How often each growing function is called in {@code node}'s own expressions (not its inputs'). */
    private static Map<String, Integer> calls(JsonNode node) {
        Map<String, Integer> calls = new java.util.HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext();) {
            Map.Entry<String, JsonNode> field = fields.next();
            if (!"Plans".equals(field.getKey())) {
                count(field.getValue(), calls);
            }
        }
        return calls;
    }

    private static void count(JsonNode value, Map<String, Integer> calls) {
        if (value.isTextual()) {
            Matcher call = GROWING_CALL.matcher(value.asText());
            while (call.find()) {
                calls.merge(call.group(1), 1, Integer::sum);
            }
        } else if (value.isContainerNode()) {
            value.forEach(element -> count(element, calls));
        }
    }
}
