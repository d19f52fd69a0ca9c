package dev.countersign.executor.kind;

import java.time.Duration;

import io.quarkus.mailer.Mail;
import io.smallrye.mutiny.Uni;

/**
 * An external kind's only way out, open for the one claimed action being called and closed once its outcome is
 * recorded. Each send is checked by the gate: the scope must be open, mail only from a kind that declares it sends mail
 * ({@link ExternalKind#sendsMail()}), and an HTTP request only to the origin the kind declares
 * ({@link ExternalKind#httpOrigin()}).
 */
public interface Egress {

    /** Sends one e-mail over the configured SMTP server. */
    Uni<Void> send(Mail mail);

    /**
     * A Quarkus REST Client for {@code api} (a JAX-RS interface) whose base is the URI the kind declares
     * ({@link ExternalKind#httpOrigin()}), waiting at most {@code timeout} for an answer. Every request it sends is
     * checked by the gate (this scope open, the request's origin the declared one), redirects are not followed, and an
     * answer of any status is returned rather than thrown. It is closed with this scope: a client kept beyond the
     * action's call serves nothing. Traces, client metrics and the TLS registry apply as to any REST Client of the
     * service.
     */
    <T> T http(Class<T> api, Duration timeout);
}
