package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An e-mail action whose executor is SIGKILLed after the SMTP server accepted the message and before the executor
 * recorded it: after the restart the action waits for a person ({@code needs_review}), the e-mail is not sent again,
 * and a repeated confirm sends nothing either. Exactly one e-mail reaches the SMTP server.
 */
class ExternalWritesCrashIT {

    private static LocalStack stack;

    @BeforeAll
    static void startTheStack() throws Exception {
        // First life: a slow mail server is waited for (60 s) and nothing is judged lost for 2 min, so the action is
        // certainly still executing when the process is killed.
        stack = LocalStack.start(TestStacks.withExecutors(1, Map.of("MAIL_TIMEOUT", "PT60S",
                "EXTERNAL_STALE_AFTER", "PT120S", "EXTERNAL_RECOVERY_INTERVAL", "PT1S")));
    }

    @AfterAll
    static void stopTheStack() {
        if (stack != null) {
            stack.close();
        }
    }

    private static String status(String actionId) throws SQLException {
        try (var owner = stack.ownerConnection();
                var query = owner.prepareStatement("SELECT status FROM actions WHERE id = ?::uuid")) {
            query.setString(1, actionId);
            try (var rows = query.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    private static String historyChannel(String actionId, String toStatus) throws SQLException {
        try (var owner = stack.ownerConnection();
                var query = owner.prepareStatement(
                        "SELECT channel FROM action_history WHERE action_id = ?::uuid AND to_status = ?")) {
            query.setString(1, actionId);
            query.setString(2, toStatus);
            try (var rows = query.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    private static List<MimeMessage> mailsOf(String actionId) {
        return stack.smtp().received().stream().filter(message -> actionId.equals(header(message))).toList();
    }

    private static String header(MimeMessage message) {
        try {
            String[] values = message.getHeader("X-Countersign-Action");
            return values == null ? null : values[0];
        } catch (MessagingException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aKillBetweenSendingAndRecordingLeavesOneEmailAndTheActionForAPerson() throws Exception {
        var tokens = Http.post(stack.tokenUrl(), null, Map.of("tenant", "acme", "user", "alice")).body();
        String agent = tokens.get("agentToken").asText();
        String executor = tokens.get("executorToken").asText();
        var reply = Http.post(stack.agentUrl() + "/api/conversations/crash-1/messages", agent, Map.of("text",
                "email the requestor of case " + LocalStack.ACME_REFUND_CASE + ": your refund is on its way"));
        assertThat(reply.status()).isEqualTo(200);
        var card = reply.body().get("proposals").get(0);
        String actionId = card.get("actionId").asText();
        String confirmUrl = stack.executorUrl() + "/api/actions/" + actionId + "/confirm";
        Map<String, String> confirm = Map.of("paramsHash", card.get("paramsHash").asText());
        await().atMost(Duration.ofSeconds(15)).until(() -> "proposed".equals(status(actionId)));

        // The SMTP server keeps the message but holds its answer: the executor is between its call and its record.
        stack.smtp().replyAfter(Duration.ofSeconds(30));
        CompletableFuture.runAsync(() -> {
            try {
                Http.post(confirmUrl, executor, confirm);
            } catch (Exception cutOffByTheKill) {
                // expected: the executor dies while this request waits
            }
        });
        await().atMost(Duration.ofSeconds(20)).until(() -> mailsOf(actionId).size() == 1);
        assertThat(status(actionId)).isEqualTo("executing");

        stack.killExecutor(0);
        stack.smtp().replyAfter(Duration.ZERO);
        // Second life: short calls, so an unrecorded call is judged lost after 7 s (the start-up check allows it).
        stack.restartExecutor(0, Map.of("MAIL_TIMEOUT", "PT1S", "TICKET_TIMEOUT", "PT1S", "TICKET_ATTEMPTS", "1",
                "EXTERNAL_STALE_AFTER", "PT7S"));

        await().atMost(Duration.ofSeconds(40)).until(() -> "needs_review".equals(status(actionId)));
        assertThat(historyChannel(actionId, "needs_review")).isEqualTo("recovery");
        var again = Http.post(confirmUrl, executor, confirm);
        assertThat(again.status()).isEqualTo(409);
        assertThat(mailsOf(actionId)).hasSize(1);
        assertThat(mailsOf(actionId).get(0).getAllRecipients()[0].toString()).isEqualTo("requestor@example.org");
        var view = Http.get(stack.executorUrl() + "/api/actions/" + actionId, executor);
        assertThat(view.body().get("status").asText()).isEqualTo("needs_review");
        assertThat(view.body().get("result").get("error").asText()).isEqualTo("outcome_unknown");
    }
}
