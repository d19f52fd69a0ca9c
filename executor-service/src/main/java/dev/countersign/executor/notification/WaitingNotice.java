package dev.countersign.executor.notification;

import java.net.URI;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.executor.action.ActionRow;

/**
 * What every channel tells a person about an action that waits for them, and only what the executor wrote, never what
 * the agent or the model wrote (no summary, no parameter: a description could be a phishing line): the kind's label
 * from the catalogue, the tier, who asked, when it expires, and a link to the decision page focused on the action,
 * where the person signs in. Nothing in it can decide by itself: the link holds no token, and the page asks who the
 * person is.
 */
record WaitingNotice(String actionId, String kind, String label, String tier, String requestedBy, Instant expiresAt,
        String link, boolean reminder) {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
            .withZone(ZoneOffset.UTC);

    /** What {@code notification} tells of {@code action}: a first notice, or a reminder before it expires. */
    static WaitingNotice of(Notification notification, ActionRow action, URI decisionPage) {
        String label = ActionCatalogue.find(action.kind()).map(ActionDefinition::label).orElse(action.kind());
        return new WaitingNotice(action.id().toString(), action.kind(), label,
                action.tier().name().toLowerCase(Locale.ROOT), action.requestedBy(), action.expiresAt(),
                link(decisionPage, action), Notification.REMINDER.equals(notification.purpose()));
    }

    /** Whether {@code url} can be the decision page's origin: an absolute http or https URL with a host. */
    static boolean isPageOrigin(URI url) {
        return url.isAbsolute() && url.getHost() != null
                && ("https".equals(url.getScheme()) || "http".equals(url.getScheme()));
    }

    /** The page focused on {@code action}: under the configured URL's path, if it has one. */
    private static String link(URI decisionPage, ActionRow action) {
        String base = decisionPage.toString();
        return (base.endsWith("/") ? base : base + "/") + "decide/?action=" + action.id();
    }

    /** The expiry as people read it, or "no set time". */
    String expiry() {
        return expiresAt == null ? "no set time" : TIME.format(expiresAt);
    }
}
