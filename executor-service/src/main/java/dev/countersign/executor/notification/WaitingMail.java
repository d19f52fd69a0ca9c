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
        String opening = notice.reminder()
                ? "Reminder: an action still waits for your decision in Countersign, and its window closes soon."
                : "An action waits for your decision in Countersign.";
        String text = """
                %s

                What: %s (tier %s)
                Asked by: %s
                Decide before: %s

                Open the decision page to see exactly what it would write, and confirm or cancel it there:
                %s

                You are told because you may decide it. Nothing is done until a person confirms it on the page.
                """.formatted(opening, notice.label(), notice.tier(), notice.requestedBy(), notice.expiry(),
                notice.link());
        String subject = (notice.reminder()
                ? "Reminder, closes at " + notice.expiry() + ": "
                : "Waiting for your"
                        + " decision: ")
                + notice.label();
        return Mail.withText(notification.address(), subject, text)
                .setFrom(from).addHeader("Message-ID", messageId(notification))
                .addHeader("X-Countersign-Notification-For", notice.actionId());
    }
}
