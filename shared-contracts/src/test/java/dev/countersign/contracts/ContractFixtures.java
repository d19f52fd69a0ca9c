package dev.countersign.contracts;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.json.Json;

/**
 * The golden JSON of every event, as it travels on Kafka. Shipped in the test-jar so both services' tests read the very
 * same files: a change to an event that breaks a consumer breaks a test on both sides.
 */
public final class ContractFixtures {

    public static final String ACTION_PROPOSED = "action-proposed.json";
    public static final String ACTION_STAGED = "action-staged.json";
    public static final String ACTION_REJECTED = "action-rejected.json";
    public static final String ACTION_EXECUTED = "action-executed.json";
    public static final String ACTION_FAILED = "action-failed.json";
    public static final String ACTION_CANCELLED = "action-cancelled.json";
    public static final String ACTION_EXPIRED = "action-expired.json";
    public static final String ACTION_DECIDED = "action-decided.json";
    public static final String ACTION_UNDONE = "action-undone.json";
    public static final String ACTION_NEEDS_REVIEW = "action-needs-review.json";
    public static final String ACTION_SUPERSEDED = "action-superseded.json";
    public static final String PLAN_STATEMENT_DRAFTED = "plan-statement-drafted.json";
    public static final String PLAN_REFUSED = "plan-refused.json";
    public static final String PLAN_FELL_SHORT = "plan-fell-short.json";
    public static final String TURN_RECORDED = "turn-recorded.json";

    private ContractFixtures() {
    }

    public static String text(String name) {
        try (InputStream in = ContractFixtures.class.getResourceAsStream("/fixtures/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("No fixture " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The member names of an event as it travelled, to compare with {@link #memberNames(String)} of its fixture. */
    public static java.util.List<String> memberNames(JsonNode event) {
        java.util.List<String> names = new java.util.ArrayList<>();
        event.fieldNames().forEachRemaining(names::add);
        return names;
    }

    public static java.util.List<String> memberNames(String fixture) {
        return memberNames(tree(fixture));
    }

    public static JsonNode tree(String name) {
        try {
            return Json.mapper().readTree(text(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
