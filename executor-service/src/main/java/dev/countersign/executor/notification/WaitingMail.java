package dev.countersign.executor.notification;

import io.quarkus.mailer.Mail;

/**
 * The e-mail that tells a person an action waits for their decision ({@link WaitingNotice}: what the executor wrote,
 * nothing the agent wrote, no token). Its {@code Message-ID} is the notification's id, the same on a resend.
 */
final class WaitingMail {

    private WaitingMail() {
    }

    /** The Message-ID of {@code notification}'s e-mail: {@code <id@countersign>}. */
    static String messageId(Notification notification) {
        return "<" + notification.id() + "@countersign>";
    }

    static Mail of(Notification notification, WaitingNotice notice, String from) {
        String text = """
                An action waits for your decision in Countersign.

                What: %s (tier %s)
                Asked by: %s
                Decide before: %s

                Open the decision page to see exactly what it would write, and confirm or cancel it there:
                %s

                You are told because you may decide it. Nothing is done until a person confirms it on the page.
                """.formatted(notice.label(), notice.tier(), notice.requestedBy(), notice.expiry(), notice.link());
        return Mail.withText(notification.address(), "Waiting for your decision: " + notice.label(), text)
                .setFrom(from).addHeader("Message-ID", messageId(notification))
                .addHeader("X-Countersign-Notification-For", notice.actionId());
    }
}
