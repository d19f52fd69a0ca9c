package dev.countersign.executor.kind;

import java.util.UUID;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What a kind's executor part sees of an action: the stored proposal as the person approved it (its parameters, the
 * target as staged), who asked, and, for an undo, what the write recorded. Nothing of the decision or the policy.
 */
public interface KindAction {

    UUID id();

    String tenantId();

    /** The person who asked (the agent's user). */
    String requestedBy();

    String kind();

    /** The stored parameters in the catalogue's normal form; they still hash to what was approved. */
    JsonNode params();

    /**
     * The version of the row it changes, read when it was staged (null: the kind changes no existing row); a write
     * changes the row only while it still has it.
     */
    Long targetVersion();

    /** The target's fields as staged (what the person saw), or null for a kind without a target. */
    JsonNode targetBefore();

    /** What the write answered (for an undo: what the action wrote), or null before it ran. */
    JsonNode result();

    /** Derived from the id by the database; what an external kind forwards to its vendor. */
    String idempotencyKey();

    /** A parameter's normalised text, or null when the proposal left it out. */
    default String param(String name) {
        return params().hasNonNull(name) ? params().get(name).asText() : null;
    }

    /** A parameter mapped by {@code parse}, or null when the proposal left it out. */
    default <T> T param(String name, Function<String, T> parse) {
        String value = param(name);
        return value == null ? null : parse.apply(value);
    }
}
