package dev.countersign.executor.kind;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

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

    /** Sends {@code request} (which carries its own timeout) and answers its body as text. */
    Uni<HttpResponse<String>> send(HttpRequest request);
}
