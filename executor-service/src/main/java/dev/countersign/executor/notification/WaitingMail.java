package dev.countersign.executor.notification;

import java.net.URI;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.executor.action.ActionRow;
import io.quarkus.mailer.Mail;

/**
 * The e-mail that tells a person an action waits for their decision. It carries what the executor wrote, never what the
 * agent or the model wrote (no summary, no parameter: a description could be a phishing line): the kind's label from
 * the catalogue, the tier, who asked, when it expires, and a link to the decision page focused on the action, where the
 * person signs in. Nothing in it can decide by itself: the link holds no token, and the page asks who the person is.
 * Its {@code Message-ID} is the notification's id, the same on a resend.
 */
final class WaitingMail {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
            .withZone(ZoneOffset.UTC);

    private WaitingMail() {
    }

    /** The Message-ID of {@code notification}'s e-mail: {@code <id@countersign>}. */
    static String messageId(Notification notification) {
        return "<" + notification.id() + "@countersign>";
    }

    /** Whether {@code url} can be the decision page's origin: an absolute http or https URL with a host. */
    static boolean isPageOrigin(URI url) {
        return url.isAbsolute() && url.getHost() != null
                && ("https".equals(url.getScheme()) || "http".equals(url.getScheme()));
    }

    /** The page focused on {@code action}: under the configured URL's path, if it has one. */
    static String link(URI decisionPage, ActionRow action) {
        String base = decisionPage.toString();
        return (base.endsWith("/") ? base : base + "/") + "decide/?action=" + action.id();
    }

    static Mail of(Notification notification, ActionRow action, URI decisionPage, String from) {
        String label = ActionCatalogue.find(action.kind()).map(ActionDefinition::label).orElse(action.kind());
        String link = link(decisionPage, action);
        String text = """
                An action waits for your decision in Countersign.

                What: %s (tier %s)
                Asked by: %s
                Decide before: %s

                Open the decision page to see exactly what it would write, and confirm or cancel it there:
                %s

                You are told because you may decide it. Nothing is done until a person confirms it on the page.
                """.formatted(label, action.tier().name().toLowerCase(Locale.ROOT), action.requestedBy(),
                action.expiresAt() == null ? "no set time" : TIME.format(action.expiresAt()), link);
        return Mail.withText(notification.address(), "Waiting for your decision: " + label, text).setFrom(from)
                .addHeader("Message-ID", messageId(notification))
                .addHeader("X-Countersign-Notification-For", action.id().toString());
    }
}
