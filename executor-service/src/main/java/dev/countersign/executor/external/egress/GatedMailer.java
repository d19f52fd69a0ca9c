package dev.countersign.executor.external.egress;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.mailer.Mail;
import io.quarkus.mailer.reactive.ReactiveMailer;
import io.smallrye.mutiny.Uni;

/** The only holder of the SMTP client: sends only inside an open {@link GateScope}. */
@ApplicationScoped
public class GatedMailer {

    private final ReactiveMailer mailer;
    private final ExternalGate gate;

    public GatedMailer(ReactiveMailer mailer, ExternalGate gate) {
        this.mailer = mailer;
        this.gate = gate;
    }

    public Uni<Void> send(GateScope scope, Mail mail) {
        return Uni.createFrom().deferred(() -> {
            gate.check(scope, "SMTP");
            return mailer.send(mail);
        });
    }
}
