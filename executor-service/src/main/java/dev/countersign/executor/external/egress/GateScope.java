package dev.countersign.executor.external.egress;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import java.util.UUID;

import dev.countersign.executor.kind.Egress;
import io.quarkus.mailer.Mail;
import io.smallrye.mutiny.Uni;

/**
 * Permission for one claimed action's external call, handed out by {@link ExternalGate#open} and closed when the call
 * is recorded: the kind's {@link Egress}. The raw mail and HTTP clients serve a request only inside an open scope, mail
 * only for a kind that declared it sends mail, HTTP only to the origin the kind declared; nothing outside this package
 * can make one.
 */
public final class GateScope implements Egress, AutoCloseable {

    private final UUID actionId;
    private final String tenantId;
    private final boolean sendsMail;
    private final Optional<URI> httpOrigin;
    private final GatedMailer mailer;
    private final GatedHttp http;
    private volatile boolean open = true;

    GateScope(UUID actionId, String tenantId, boolean sendsMail, Optional<URI> httpOrigin, GatedMailer mailer,
            GatedHttp http) {
        this.actionId = actionId;
        this.tenantId = tenantId;
        this.sendsMail = sendsMail;
        this.httpOrigin = httpOrigin;
        this.mailer = mailer;
        this.http = http;
    }

    public UUID actionId() {
        return actionId;
    }

    String tenantId() {
        return tenantId;
    }

    boolean sendsMail() {
        return sendsMail;
    }

    Optional<URI> httpOrigin() {
        return httpOrigin;
    }

    boolean isOpen() {
        return open;
    }

    @Override
    public Uni<Void> send(Mail mail) {
        return mailer.send(this, mail);
    }

    @Override
    public Uni<HttpResponse<String>> send(HttpRequest request) {
        return http.send(this, request);
    }

    @Override
    public void close() {
        open = false;
    }
}
