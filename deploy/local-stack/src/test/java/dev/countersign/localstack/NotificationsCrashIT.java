package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The people who may decide an action are e-mailed at least once across an executor SIGKILL (issue 44,
 * docs/approvals.md): killed after the notifications were committed and before they were sent, each person gets exactly
 * one message; killed after the SMTP server accepted a message and before the send was recorded, at most one duplicate,
 * with the same Message-ID.
 */
class NotificationsCrashIT {

    private static LocalStack stack;

    @BeforeAll
    static void startTheStack() throws Exception {
        // Notifications are due 5 s after they are planned (time to kill the executor before any is sent: the kill
        // follows the planning at once), and a claim is left to its sender for 10 s (so a dead sender's message goes
        // again soon after the restart).
        stack = LocalStack.start(TestStacks.withExecutors(1, Map.of("NOTIFY_DELAY", "PT5S", "NOTIFY_LEASE",
                "PT10S")));
        // The people of acme as the executor would have seen them sign in: alice owns Checking, bob approves.
        try (var owner = stack.ownerConnection();
                var insert = owner.prepareStatement("INSERT INTO tenant_members"
                        + " (tenant_id, user_id, email, approver, admin) VALUES ('acme', ?, ?, true, false)")) {
            for (String user : List.of("alice", "bob")) {
                insert.setString(1, user);
                insert.setString(2, user + "@acme.example");
                insert.executeUpdate();
            }
        }
    }

    @AfterAll
    static void stopTheStack() {
        if (stack != null) {
            stack.close();
        }
    }

    /** Proposes an expense in the chat as alice: its action id, once staged. */
    private static String proposed(String conversation, String amount) throws Exception {
        var tokens = Http.post(stack.tokenUrl(), null, Map.of("tenant", "acme", "user", "alice")).body();
        var reply = Http.post(stack.agentUrl() + "/api/conversations/" + conversation + "/messages",
                tokens.get("agentToken").asText(), Map.of("text", "add a " + amount + " lunch expense to Checking"));
        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        String actionId = reply.body().get("proposals").get(0).get("actionId").asText();
        await().atMost(Duration.ofSeconds(15)).until(() -> notifications(actionId, null) == 2);
        return actionId;
    }

    /** The action's notifications (in {@code state}, or all). */
    private static int notifications(String actionId, String state) throws SQLException {
        try (var owner = stack.ownerConnection();
                var query = owner.prepareStatement("SELECT count(*) FROM"
                        + " notifications WHERE action_id = ?::uuid AND (?::text IS NULL OR state = ?::text)")) {
            query.setString(1, actionId);
            query.setString(2, state);
            query.setString(3, state);
            try (var rows = query.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    /** The ids of the action's notifications. */
    private static List<String> ids(String actionId) throws SQLException {
        try (var owner = stack.ownerConnection();
                var query = owner.prepareStatement(
                        "SELECT id FROM notifications WHERE action_id = ?::uuid ORDER BY recipient")) {
            query.setString(1, actionId);
            List<String> ids = new ArrayList<>();
            try (var rows = query.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getString(1));
                }
            }
            return ids;
        }
    }

    private static List<MimeMessage> mailsOf(String actionId) {
        return stack.smtp().received().stream().filter(message -> {
            try {
                String[] values = message.getHeader("X-Countersign-Notification-For");
                return values != null && actionId.equals(values[0]);
            } catch (MessagingException e) {
                throw new IllegalStateException(e);
            }
        }).toList();
    }

    @Test
    void killedBeforeTheSendEachPersonGetsExactlyOneMessage() throws Exception {
        String actionId = proposed("notify-crash-1", "12.50");
        assertThat(notifications(actionId, "pending")).isEqualTo(2);
        assertThat(mailsOf(actionId)).as("not due yet").isEmpty();

        stack.killExecutor(0);
        stack.restartExecutor(0, Map.of());

        await().atMost(Duration.ofSeconds(60)).until(() -> notifications(actionId, "sent") == 2);
        assertThat(mailsOf(actionId)).hasSize(2);
        for (String id : ids(actionId)) {
            assertThat(stack.smtp().withMessageId("<" + id + "@countersign>")).hasSize(1);
        }
    }

    @Test
    void killedAfterTheMailServerAcceptedAMessageItComesAtMostTwiceWithOneMessageId() throws Exception {
        String actionId = proposed("notify-crash-2", "13.50");
        // The server keeps each message but holds its answer (and, GreenMail, every other session meanwhile) for 6 s:
        // the sender is between its send and its record when it is killed, and the server answers again by the time
        // the restarted executor sends.
        stack.smtp().replyAfter(Duration.ofSeconds(6));
        await().atMost(Duration.ofSeconds(40)).until(() -> !mailsOf(actionId).isEmpty());

        stack.killExecutor(0);
        stack.smtp().replyAfter(Duration.ZERO);
        stack.restartExecutor(0, Map.of());

        await().atMost(Duration.ofSeconds(60)).until(() -> notifications(actionId, "sent") == 2);
        for (String id : ids(actionId)) {
            assertThat(stack.smtp().withMessageId("<" + id + "@countersign>")).hasSizeBetween(1, 2);
        }
        assertThat(mailsOf(actionId)).hasSizeBetween(2, 3);
        // The message that was accepted before the kill came again after it, with the same Message-ID.
        String first = mailsOf(actionId).get(0).getHeader("Message-ID")[0];
        assertThat(stack.smtp().withMessageId(first)).hasSize(2);
    }
}
