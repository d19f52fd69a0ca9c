package dev.countersign.executor.kinds.mail.send;

import java.time.Duration;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.EmailAddresses;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.kind.CallRefused;
import dev.countersign.executor.kind.Egress;
import dev.countersign.executor.kind.ExternalKind;
import dev.countersign.executor.kind.KindAction;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.RowTarget;
import io.quarkus.mailer.Mail;
import io.smallrye.mutiny.Uni;

/**
 * {@code mail.send}: one e-mail to the requestor of a support case, over SMTP. The address is the one the person saw
 * when confirming (the target as staged; the claim checked the case has not changed since). The action's idempotency
 * key is the {@code Message-ID}, so a receiving system that deduplicates can; SMTP itself does not, so one execution
 * sends once and a call whose answer never came is not repeated (the action goes to {@code needs_review}).
 */
@ApplicationScoped
public class SendMailKind implements ExternalKind {

    private final MailConfig config;

    public SendMailKind(MailConfig config) {
        this.config = config;
    }

    @Override
    public String kind() {
        return ShippedKinds.SEND_MAIL;
    }

    @Override
    public Optional<RowTarget> target() {
        return Optional.of(new RowTarget("caseId", "support case", false, """
                SELECT version, jsonb_build_object('requestorEmail', requestor_email, 'title', title)::text AS fields
                FROM support_cases WHERE id = $1 AND current_tenant() = $2"""));
    }

    /** A support case, a ticket: the tenant's, nobody's own. */
    @Override
    public RowOwner owner() {
        return RowOwner.nobody();
    }

    @Override
    public boolean sendsMail() {
        return true;
    }

    @Override
    public boolean isConfigured() {
        return config.enabled();
    }

    @Override
    public int attempts() {
        return 1;
    }

    @Override
    public Duration longestCall() {
        return config.timeout();
    }

    /** The Message-ID header of the action's e-mail: its idempotency key, the same on every instance. */
    public static String messageId(KindAction action) {
        return "<" + action.idempotencyKey() + "@countersign>";
    }

    @Override
    public Uni<JsonNode> call(KindAction action, Egress egress) {
        String to = action.targetBefore().get("requestorEmail").asText();
        if (!isSingleAddress(to)) {
            return Uni.createFrom().failure(new CallRefused(ErrorCode.VALIDATION_FAILED,
                    "the case's requestor address is not one plain e-mail address; nothing was sent"));
        }
        Mail mail = Mail.withText(to, action.params().get("subject").asText(), action.params().get("body").asText())
                .setFrom(config.from())
                .addHeader("Message-ID", messageId(action))
                .addHeader("X-Countersign-Action", action.id().toString());
        return egress.send(mail)
                .ifNoItem().after(config.timeout()).fail()
                .onFailure(CallRefused::isConnectionRefused).transform(
                        failure -> new CallRefused(ErrorCode.UPSTREAM_UNAVAILABLE,
                                "the SMTP server refused the connection; nothing was sent"))
                .map(ignored -> (JsonNode) Json.mapper().createObjectNode().put("to", to)
                        .put("messageId", messageId(action)));
    }

    /** One plain address ({@link EmailAddresses#isPlain}, the one rule for addresses Countersign sends to). */
    public static boolean isSingleAddress(String address) {
        return EmailAddresses.isPlain(address);
    }
}
