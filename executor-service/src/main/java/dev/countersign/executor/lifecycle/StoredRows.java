package dev.countersign.executor.lifecycle;

import java.util.Comparator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;

import dev.countersign.executor.action.ActionRow;

/**
 * Whether a row a move stored is the one its outcome event was made from: a move sent together with its event (one
 * round trip) builds the event from the row it expects the update to store, and must not commit if the database stored
 * another.
 */
public final class StoredRows {

    /** JSON nodes equal as JSON: numbers by value (1 and 1.0, an int and a long), the rest as Jackson compares them. */
    private static final Comparator<JsonNode> JSON_BY_VALUE = (a, b) -> a.equals(b)
            || a.isNumber() && b.isNumber() && a.decimalValue().compareTo(b.decimalValue()) == 0 ? 0 : 1;

    private StoredRows() {
    }

    /**
     * The row {@code confirmed -> executed} stored, if it is the one the outcome event describes: the same columns, and
     * the same result as JSON (jsonb keeps numbers by value, not as Java typed them). Otherwise the transaction must
     * not commit: an {@link IllegalStateException}.
     */
    public static ActionRow storedAsExpected(ActionRow stored, ActionRow expected) {
        if (stored == null) {
            throw new IllegalStateException(
                    "Action " + expected.id() + " was no longer confirmed when its write ended");
        }
        if (!sameRow(stored, expected)) {
            throw new IllegalStateException("Action " + expected.id()
                    + " was stored as executed otherwise than its outcome event says; its transaction rolls back");
        }
        return stored;
    }

    /**
     * Two rows equal as the database stores them: every column, and the result as JSON (jsonb keeps numbers by value,
     * not as Java typed them; a null result is stored as JSON null, which reads back as a NullNode).
     */
    public static boolean sameRow(ActionRow a, ActionRow b) {
        JsonNode resultA = a.result() == null ? NullNode.getInstance() : a.result();
        JsonNode resultB = b.result() == null ? NullNode.getInstance() : b.result();
        return resultA.equals(JSON_BY_VALUE, resultB) && a.withResult(null).equals(b.withResult(null));
    }
}
