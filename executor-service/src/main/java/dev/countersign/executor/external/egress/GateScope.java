package dev.countersign.executor.external.egress;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jboss.logging.Logger;

import dev.countersign.executor.kind.Egress;
import io.quarkus.mailer.Mail;
import io.smallrye.mutiny.Uni;

/**
 * Permission for one claimed action's external call, handed out by {@link ExternalGate#open} and closed when the call
 * is recorded: the kind's {@link Egress}; or for one claimed notification's e-mail
 * ({@link ExternalGate#openForNotification}). The raw mail and HTTP clients serve a request only inside an open scope,
 * mail only for a kind that declared it sends mail (and a notification's only to its address), HTTP only to the origin
 * the kind declared; nothing outside this package can make one.
 */
public final class GateScope implements Egress, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(GateScope.class);

    private final UUID actionId;
    private final String tenantId;
    private final boolean sendsMail;
    private final Optional<URI> httpOrigin;
    private final Optional<String> mailTo;
    private final GatedMailer mailer;
    private final GatedHttp http;
    private final List<AutoCloseable> clients = new CopyOnWriteArrayList<>();
    private volatile boolean open = true;

    GateScope(UUID actionId, String tenantId, boolean sendsMail, Optional<URI> httpOrigin, Optional<String> mailTo,
            GatedMailer mailer, GatedHttp http) {
        this.actionId = actionId;
        this.tenantId = tenantId;
        this.sendsMail = sendsMail;
        this.httpOrigin = httpOrigin;
        this.mailTo = mailTo;
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

    /** The one address mail may go to in this scope (a notification's); empty: whatever the kind addresses. */
    Optional<String> mailTo() {
        return mailTo;
    }

    boolean isOpen() {
        return open;
    }

    @Override
    public Uni<Void> send(Mail mail) {
        return mailer.send(this, mail);
    }

    @Override
    public <T> T http(Class<T> api, Duration timeout) {
        T client = http.client(this, api, timeout);
        if (client instanceof AutoCloseable closeable) {
            clients.add(closeable);
            if (!open) {
                // Closed while this client was being made: close() may have missed it.
                close();
            }
        }
        return client;
    }

    /** Closes the scope and the clients it made: a client kept past this serves nothing. */
    @Override
    public void close() {
        open = false;
        for (AutoCloseable client : clients) {
            try {
                client.close();
            } catch (Exception e) {
                LOG.debugf("Closing an HTTP client of action %s: %s", actionId, e.toString());
            }
        }
        clients.clear();
    }
}
