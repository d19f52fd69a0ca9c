package dev.countersign.executor.external.egress;

import java.util.List;

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
            if (!scope.sendsMail()) {
                throw new UngatedCallException("SMTP call refused: the kind of action " + scope.actionId()
                        + " does not declare that it sends mail");
            }
            if (scope.mailTo().isPresent() && !(List.of(scope.mailTo().get()).equals(mail.getTo())
                    && mail.getCc().isEmpty() && mail.getBcc().isEmpty())) {
                throw ungated.refuse("SMTP call for a notification of action " + scope.actionId(),
                        "it may go to its one address only");
            }
            return mailer.send(mail);
        });
    }
}
