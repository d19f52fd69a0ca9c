package dev.countersign.executor.notification;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookSigningException;

import dev.countersign.contracts.json.Json;

/**
 * The webhook message that tells a person an action waits for their decision ({@link WaitingNotice}: what the executor
 * wrote, nothing the agent wrote, no token), signed as the Standard Webhooks specification says
 * (https://www.standardwebhooks.com): {@code webhook-id} is the notification's id, the same on a resend, so a receiver
 * can drop a repeat; {@code webhook-timestamp} the send's time in seconds; {@code webhook-signature} {@code v1,} and
 * the base64 HMAC-SHA256, under the person's key ({@link dev.countersign.executor.members.WebhookKeys}), of the id, the
 * timestamp and the body joined by dots. A receiver that checks the signature and refuses a timestamp older than a few
 * minutes (the library's verify does both) refuses a forged message and a replayed one.
 * <p>
 * Two bodies: {@code standard}, Countersign's JSON ({@code {"type": "action.waiting"} or {@code "action.reminder"},
 * {@code "timestamp", "data": {...}}}), and {@code slack}, a Slack-compatible {@code {"text": ...}} for an incoming
 * webhook (which ignores the signature).
 */
record WaitingWebhook(String id, long timestamp, String signature, String body) {

    static final String SLACK = "slack";

    static WaitingWebhook of(Notification notification, WaitingNotice notice, String format, String secret,
            Instant now) {
        String body = SLACK.equals(format) ? slack(notice) : standard(notice, now);
        long timestamp = now.getEpochSecond();
        try {
            String id = notification.id().toString();
            return new WaitingWebhook(id, timestamp, new Webhook(secret).sign(id, timestamp, body), body);
        } catch (WebhookSigningException e) {
            throw new IllegalStateException("Signing the webhook of notification " + notification.id() + " failed", e);
        }
    }

    private static String standard(WaitingNotice notice, Instant now) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("actionId", notice.actionId());
        data.put("kind", notice.kind());
        data.put("label", notice.label());
        data.put("tier", notice.tier());
        data.put("requestedBy", notice.requestedBy());
        data.put("expiresAt", notice.expiresAt() == null ? null : notice.expiresAt().toString());
        data.put("decisionPage", notice.link());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", notice.reminder() ? "action.reminder" : "action.waiting");
        body.put("timestamp", now.toString());
        body.put("data", data);
        return Json.write(body);
    }

    /** One line of Slack's mrkdwn, its control characters escaped, with the link as a Slack link. */
    private static String slack(WaitingNotice notice) {
        String text = (notice.reminder() ? "Reminder, still w" : "W")
                + "aiting for your decision: *%s* (tier %s), asked by %s, decide before %s. <%s|Open the decision page>"
                        .formatted(escaped(notice.label()), notice.tier(), escaped(notice.requestedBy()),
                                notice.expiry(), notice.link());
        return Json.write(Map.of("text", text));
    }

    /** Slack's three control characters in text (&amp;, &lt;, &gt;), so a name cannot make a link or a mention. */
    private static String escaped(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
