package dev.countersign.executor.external.egress;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.mailer.Mail;
import io.quarkus.mailer.reactive.ReactiveMailer;
import io.smallrye.mutiny.Uni;

/** The only holder of the SMTP client: sends only inside an open {@link GateScope}. */
@ApplicationScoped
public class GatedMailer {

    private final ReactiveMailer mailer;
    private final UngatedCalls ungated;

    public GatedMailer(ReactiveMailer mailer, UngatedCalls ungated) {
        this.mailer = mailer;
        this.ungated = ungated;
    }

    public Uni<Void> send(GateScope scope, Mail mail) {
        return Uni.createFrom().deferred(() -> {
            ungated.check(scope, "SMTP");
            return mailer.send(mail);
        });
    }
}
