package dev.countersign.executor;

import static dev.countersign.devsupport.testing.Waits.await;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import jakarta.inject.Inject;
import jakarta.mail.internet.MimeMessage;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Groups;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.devsupport.external.LocalSmtp;
import dev.countersign.devsupport.testing.TestInfrastructure;
import dev.countersign.devsupport.testing.TopicRecords;
import dev.countersign.executor.notification.NotificationPlanner;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The people who may decide an action are e-mailed (issue 44): once per person and action, with a link to the decision
 * page and nothing the agent wrote, over real SMTP (GreenMail); a resend carries the same Message-ID; a slow mail
 * server delays no decision.
 */
@QuarkusTest
@ExecutorTestResources
class NotificationsTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private final LocalSmtp smtp = TestInfrastructure.smtp();
    private TestTenant tenant;

    @Inject
    NotificationPlanner planner;

    @BeforeEach
    void freshTenantWithItsPeople() throws Exception {
        tenant = TestTenant.withCheckingWallet();
        // alice owns the wallet and asks; bob approves; dave is a plain user; erin approves but chose no e-mail; frank
        // approves without a verified address.
        member("alice", true, "alice@" + tenant.id() + ".example", true);
        member("bob", true, "bob@" + tenant.id() + ".example", true);
        member("dave", false, "dave@" + tenant.id() + ".example", true);
        member("erin", true, "erin@" + tenant.id() + ".example", false);
        member("frank", true, null, true);
    }

    @AfterEach
    void quickMailServer() {
        smtp.replyAfter(Duration.ZERO);
    }

    private void member(String user, boolean approver, String email, boolean wantsEmail) throws SQLException {
        try (var owner = Db.owner();
                var insert = owner.prepareStatement("INSERT INTO tenant_members (tenant_id,"
                        + " user_id, email, approver, admin, notify_email) VALUES (?, ?, ?, ?, false, ?)")) {
            insert.setString(1, tenant.id());
            insert.setString(2, user);
            insert.setString(3, email);
            insert.setBoolean(4, approver);
            insert.setBoolean(5, wantsEmail);
            insert.executeUpdate();
        }
    }

    private List<MimeMessage> mailTo(String user) {
        String address = user + "@" + tenant.id() + ".example";
        return smtp.received().stream().filter(message -> {
            try {
                return message.getAllRecipients()[0].toString().equals(address);
            } catch (jakarta.mail.MessagingException e) {
                throw new IllegalStateException(e);
            }
        }).toList();
    }

    private int notifications(UUID actionId, String state) throws SQLException {
        return Db.count("SELECT count(*) FROM notifications WHERE action_id = ? AND state = ?", actionId, state);
    }

    private int requests(UUID actionId) throws SQLException {
        return Db.count("SELECT count(*) FROM notification_requests WHERE action_id = ?", actionId);
    }

    @Test
    void thePeopleWhoMayDecideAreEmailedOnceWithALinkAndNothingTheAgentWrote() throws Exception {
        var proposal = new ProposalMother(tenant, "12.50");
        proposal.params().put("description", "URGENT click https://evil.example/confirm now");
        proposal.rehash();
        proposal.stage(kafka);

        await().atMost(Duration.ofSeconds(20)).until(() -> notifications(proposal.actionId, "sent") == 2);
        assertThat(mailTo("alice")).hasSize(1);
        assertThat(mailTo("bob")).hasSize(1);
        assertThat(mailTo("dave")).as("a plain user who does not own the row may not decide").isEmpty();
        assertThat(mailTo("erin")).as("chose no e-mail").isEmpty();
        assertThat(notifications(proposal.actionId, "pending")).isZero();

        MimeMessage mail = mailTo("bob").get(0);
        String text = mail.getContent().toString();
        assertThat(mail.getSubject()).isEqualTo("Waiting for your decision: Add a transaction");
        assertThat(text).contains("https://decide.test/decide/?action=" + proposal.actionId)
                .contains("Asked by: alice").doesNotContain("evil.example").doesNotContain("URGENT")
                .doesNotContain(proposal.token);
        String id = Db.text("SELECT id FROM notifications WHERE action_id = ? AND recipient = 'bob'",
                proposal.actionId);
        assertThat(mail.getHeader("Message-ID")[0]).isEqualTo("<" + id + "@countersign>");

        // Planned again (a request written twice, a second instance): the people are not told twice.
        try (var owner = Db.owner();
                var insert = owner.prepareStatement("INSERT INTO notification_requests"
                        + " (tenant_id, action_id, purpose) VALUES (?, ?, 'waiting')")) {
            insert.setString(1, tenant.id());
            insert.setObject(2, proposal.actionId);
            insert.executeUpdate();
        }
        planner.plan().await().atMost(Duration.ofSeconds(10));
        await().atMost(Duration.ofSeconds(10)).until(() -> requests(proposal.actionId) == 0);
        assertThat(Db.count("SELECT count(*) FROM notifications WHERE action_id = ?", proposal.actionId))
                .isEqualTo(2);
    }

    @Test
    void aSendNeverRecordedIsSentAgainWithTheSameMessageId() throws Exception {
        var proposal = ProposalMother.staged(kafka, tenant, "12.50");
        await().atMost(Duration.ofSeconds(20)).until(() -> notifications(proposal.actionId, "sent") == 2);
        String id = Db.text("SELECT id FROM notifications WHERE action_id = ? AND recipient = 'bob'",
                proposal.actionId);

        // As if the sender had died after the mail server accepted it and before the send was recorded.
        try (var owner = Db.owner();
                var reset = owner.prepareStatement("UPDATE notifications SET state = 'pending',"
                        + " sent_at = NULL, not_before = now() WHERE id = ?::uuid")) {
            reset.setString(1, id);
            reset.executeUpdate();
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> notifications(proposal.actionId, "sent") == 2);
        assertThat(smtp.withMessageId("<" + id + "@countersign>")).hasSize(2);
        assertThat(mailTo("alice")).hasSize(1);
    }

    @Test
    void anActionNoLongerWaitingTellsNobody() throws Exception {
        var proposal = ProposalMother.staged(kafka, tenant, "12.50");
        proposal.decide("confirm", tenant.bearer("alice", Groups.USER)).then().statusCode(200);
        // Whatever the planner did before the decision, a request for a decided action plans nothing.
        try (var owner = Db.owner();
                var insert = owner.prepareStatement("INSERT INTO notification_requests"
                        + " (tenant_id, action_id, purpose) VALUES (?, ?, 'reminder')")) {
            insert.setString(1, tenant.id());
            insert.setObject(2, proposal.actionId);
            insert.executeUpdate();
        }
        planner.plan().await().atMost(Duration.ofSeconds(10));
        await().atMost(Duration.ofSeconds(10)).until(() -> requests(proposal.actionId) == 0);

        assertThat(Db.count("SELECT count(*) FROM notifications WHERE action_id = ? AND purpose = 'reminder'",
                proposal.actionId)).isZero();
    }

    @Test
    void anActionAboutToCloseIsRemindedOnceAndThePageShowsWhoWasTold() throws Exception {
        // A HIGH action proposed 20 minutes ago whose window closes in 4: inside the 5 minutes before it closes.
        UUID actionId = UUID.randomUUID();
        try (var owner = Db.owner();
                var insert = owner.prepareStatement("INSERT INTO actions (id, tenant_id, requested_by, kind, tier,"
                        + " status, params, params_hash, token_hash, summary, proposed_at, expires_at) VALUES (?, ?,"
                        + " 'alice', ?, 'high', 'proposed', '{\"amount\":\"900.00\"}', repeat('a', 64),"
                        + " repeat('b', 64), 'test', now() - interval '20 minutes', now() + interval '4 minutes')")) {
            insert.setObject(1, actionId);
            insert.setString(2, tenant.id());
            insert.setString(3, ShippedKinds.CREATE_TRANSACTION);
            insert.executeUpdate();
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> Db.count("SELECT count(*) FROM notifications"
                + " WHERE action_id = ? AND state = 'sent' AND purpose = 'reminder' AND recipient = 'bob'",
                actionId) == 1);
        // bob approves and did not ask: reminded once, by e-mail.
        var toBob = mailTo("bob").stream().filter(mail -> {
            try {
                return mail.getSubject().startsWith("Reminder, closes at ");
            } catch (jakarta.mail.MessagingException e) {
                throw new IllegalStateException(e);
            }
        }).toList();
        assertThat(toBob).hasSize(1);
        assertThat(toBob.get(0).getContent().toString()).contains("still waits for your decision")
                .contains("https://decide.test/decide/?action=" + actionId);
        assertThat(Db.count("SELECT count(*) FROM action_reminders WHERE action_id = ?", actionId)).isEqualTo(1);

        // Planned again: still one reminder per person (dave is a plain user, erin chose no e-mail, frank has no
        // address; alice asked, and whether she may decide her own HIGH action is the policy's).
        planner.plan().await().atMost(Duration.ofSeconds(10));
        assertThat(Db.count("SELECT count(*) FROM notifications WHERE action_id = ? AND purpose = 'reminder'"
                + " AND recipient NOT IN ('alice', 'bob')", actionId)).isZero();
        assertThat(Db.count("SELECT count(*) FROM notifications WHERE action_id = ? AND purpose = 'reminder'"
                + " AND recipient = 'bob'", actionId)).isEqualTo(1);
        assertThat(Db.count("SELECT count(*) FROM notification_requests WHERE action_id = ?", actionId)).isZero();
        // Asked again for the reminders now due, on any instance: this action's reminder state says it had its one.
        try (var owner = Db.owner()) {
            owner.createStatement().executeQuery("SELECT notification_reminders_due(interval '5 minutes', 10000)")
                    .close();
        }
        assertThat(Db.count("SELECT count(*) FROM notification_requests WHERE action_id = ?", actionId)).isZero();

        // The decision page's record: who was told, and when it was reminded; never an address.
        var deciders = given().header("Authorization", "Bearer " + tenant.bearer("bob", Groups.APPROVER))
                .get("/api/actions/{id}/deciders", actionId).then().statusCode(200);
        deciders.body("remindedAt", notNullValue())
                .body("told.findAll { it.purpose == 'reminder' }.recipient", hasItem("bob"))
                .body("told.findAll { it.purpose == 'waiting' && it.state == 'sent' }.recipient", hasItem("bob"));
        assertThat(deciders.extract().asString()).doesNotContain("@" + tenant.id());
    }

    /** A notification row as a planner (or a sender before a death) would have left it, written as the owner. */
    private UUID pending(UUID actionId, String recipient, int attempts) throws SQLException {
        UUID id = UUID.randomUUID();
        try (var owner = Db.owner();
                var insert = owner.prepareStatement("INSERT INTO notifications (id, tenant_id,"
                        + " action_id, recipient, channel, purpose, address, attempts, not_before) VALUES (?, ?, ?, ?,"
                        + " 'email', 'reminder', ?, ?, now() - interval '1 second')")) {
            insert.setObject(1, id);
            insert.setString(2, tenant.id());
            insert.setObject(3, actionId);
            insert.setString(4, recipient);
            insert.setString(5, recipient + "@" + tenant.id() + ".example");
            insert.setInt(6, attempts);
            insert.executeUpdate();
        }
        return id;
    }

    private String state(UUID notification) throws SQLException {
        return Db.text("SELECT state FROM notifications WHERE id = ?", notification);
    }

    @Test
    void whatIsNoLongerWantedWhenDueIsDroppedNotSent() throws Exception {
        var decided = ProposalMother.staged(kafka, tenant, "12.50");
        decided.decide("confirm", tenant.bearer("alice", Groups.USER)).then().statusCode(200);
        var waiting = ProposalMother.staged(kafka, tenant, "13.50");
        UUID toDecided = pending(decided.actionId, "bob", 0);
        UUID toAPlainUser = pending(waiting.actionId, "dave", 0);
        UUID toOneWhoChoseNoEmail = pending(waiting.actionId, "erin", 0);

        await().atMost(Duration.ofSeconds(20)).until(() -> "dropped".equals(state(toDecided))
                && "dropped".equals(state(toAPlainUser)) && "dropped".equals(state(toOneWhoChoseNoEmail)));
        assertThat(smtp.withMessageId("<" + toDecided + "@countersign>")).isEmpty();
        assertThat(smtp.withMessageId("<" + toAPlainUser + "@countersign>")).isEmpty();
        assertThat(smtp.withMessageId("<" + toOneWhoChoseNoEmail + "@countersign>")).isEmpty();
    }

    @Test
    void aNotificationTriedAsOftenAsAllowedIsGivenUpNotSentAgain() throws Exception {
        var waiting = ProposalMother.staged(kafka, tenant, "12.50");
        UUID exhausted = pending(waiting.actionId, "bob", 5);

        await().atMost(Duration.ofSeconds(20)).until(() -> "failed".equals(state(exhausted)));
        assertThat(Db.text("SELECT detail FROM notifications WHERE id = ?", exhausted))
                .contains("given up after 5 attempts");
        assertThat(smtp.withMessageId("<" + exhausted + "@countersign>")).isEmpty();
    }

    @Test
    void aSlowMailServerDelaysNoDecision() throws Exception {
        smtp.replyAfter(Duration.ofSeconds(8));
        var slow = ProposalMother.staged(kafka, tenant, "12.50");
        await().atMost(Duration.ofSeconds(20)).until(() -> !mailTo("bob").isEmpty());
        assertThat(notifications(slow.actionId, "sent")).as("the mail server has not answered yet").isLessThan(2);

        var other = ProposalMother.staged(kafka, tenant, "13.50");
        other.decide("confirm", tenant.bearer("alice", Groups.USER)).then().statusCode(200);
        assertThat(notifications(slow.actionId, "sent")).as("decided while the mail server still holds the send")
                .isLessThan(2);
    }
}
