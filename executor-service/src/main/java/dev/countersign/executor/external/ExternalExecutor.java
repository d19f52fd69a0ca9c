package dev.countersign.executor.external;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.external.egress.GateScope;
import io.smallrye.mutiny.Uni;

/**
 * Carries out one kind of action outside this database (an e-mail, a ticket). It cannot join the confirming
 * transaction, so the executor claims the action ({@code executing}), commits, calls this with no lock held, and
 * records the outcome in a second transaction. The call builds its payload from the stored action only and sends the
 * action's idempotency key in the vendor's own way.
 * <p>
 * The call answers the result to record, or fails with {@link CallRefused} when the vendor definitely did not act; any
 * other failure means the outcome is unknown.
 */
public interface ExternalExecutor {

    String kind();

    /** Whether this executor can run here (its vendor is configured). */
    boolean isConfigured();

    /**
     * How many times one execution may call when no answer comes. More than one only for a vendor that honours the
     * idempotency key, so a repeated call cannot act twice.
     */
    int attempts();

    Uni<JsonNode> call(ActionRow action, GateScope scope);
}
