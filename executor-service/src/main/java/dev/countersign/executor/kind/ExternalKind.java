package dev.countersign.executor.kind;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import io.smallrye.mutiny.Uni;

/**
 * A kind carried out outside this database (an e-mail, a ticket). It cannot join the confirming transaction, so the
 * gate claims the action ({@code executing}), commits, calls this with no lock held, and records the outcome in a
 * second transaction. The call builds its payload from the stored action only, reaches its vendor only through the
 * {@link Egress} it is given, and sends the action's idempotency key in the vendor's own way.
 * <p>
 * The call answers the result to record, or fails with {@link CallRefused} when the vendor definitely did not act; any
 * other failure means the outcome is unknown.
 */
public interface ExternalKind extends ActionKind {

    /** Whether this kind can run here (its vendor is configured); if not, its proposals are refused at staging. */
    boolean isConfigured();

    /**
     * How many times one execution may call when no answer comes. More than one only for a vendor that honours the
     * idempotency key, so a repeated call cannot act twice.
     */
    int attempts();

    /**
     * The longest one execution's calls may take (every attempt at its timeout): an action claimed longer ago is judged
     * lost by the recovery, which must therefore wait longer than this.
     */
    Duration longestCall();

    /** Whether it sends e-mail (over the configured SMTP server); the gate refuses mail from a kind that does not. */
    default boolean sendsMail() {
        return false;
    }

    /** The one origin (scheme, host, port) its HTTP requests may go to; empty: it sends no HTTP. */
    default Optional<URI> httpOrigin() {
        return Optional.empty();
    }

    Uni<JsonNode> call(KindAction action, Egress egress);
}
