package dev.countersign.executor;

import static dev.countersign.devsupport.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.Topics;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.TopicRecords;
import dev.countersign.executor.retention.RetentionSweep;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 21: published outbox rows and consumers' dedup records are pruned after their retention (7 and 14 days by
 * default); nothing unpublished, nothing recent, and a decision delivered again after its dedup record went still runs
 * nothing twice.
 */
@QuarkusTest
@ExecutorTestResources
class RetentionTest {

    @Inject
    RetentionSweep sweep;

    private final TopicRecords kafka = TopicRecords.fromTestProperties();

    @Test
    void publishedOutboxRowsAndDedupRecordsPastTheirRetentionGoTheRestStays() throws Exception {
        String tenant = "t-" + UUID.randomUUID();
        UUID publishedLongAgo = outboxRow(tenant, "now() - interval '30 days'", "now() - interval '8 days'");
        UUID publishedRecently = outboxRow(tenant, "now() - interval '8 days'", "now() - interval '6 days'");
        UUID processedLongAgo = processedEvent("now() - interval '15 days'");
        UUID processedRecently = processedEvent("now() - interval '13 days'");

        sweep.sweep().await().atMost(Duration.ofSeconds(30));

        assertThat(outboxRows(publishedLongAgo)).as("published 8 days ago (retention 7)").isZero();
        assertThat(outboxRows(publishedRecently)).as("published 6 days ago").isEqualTo(1);
        assertThat(processedEvents(processedLongAgo)).as("processed 15 days ago (retention 14)").isZero();
        assertThat(processedEvents(processedRecently)).as("processed 13 days ago").isEqualTo(1);
    }

    /** A used approver token's record goes an hour after the token expired, not before (V27). */
    @Test
    void aUsedApproverTokenIsForgottenAnHourAfterItExpired() throws Exception {
        String tenant = "t-" + UUID.randomUUID();
        try (var owner = Db.owner()) {
            for (String token : List.of("expired-2h-" + tenant, "expired-30m-" + tenant)) {
                owner.createStatement().executeUpdate(("INSERT INTO approver_token_uses (token_id, tenant_id,"
                        + " action_id, event_id, expires_at) VALUES ('%s', '%s', gen_random_uuid(),"
                        + " gen_random_uuid(), now() - interval '%s')").formatted(token, tenant,
                                token.startsWith("expired-2h") ? "2 hours" : "30 minutes"));
            }
        }

        sweep.sweep().await().atMost(Duration.ofSeconds(30));

        assertThat(Db.text("SELECT string_agg(token_id, ',') FROM approver_token_uses WHERE tenant_id = ?", tenant))
                .isEqualTo("expired-30m-" + tenant);
    }

    @Test
    void aRowAnotherTransactionHoldsIsSkippedAndGoesOnTheNextSweep() throws Exception {
        String tenant = "t-" + UUID.randomUUID();
        UUID held = outboxRow(tenant, "now() - interval '30 days'", "now() - interval '8 days'");
        try (var relayLike = Db.owner();
                var lock = relayLike.prepareStatement(
                        "SELECT id FROM outbox WHERE event_id = ? FOR UPDATE")) {
            relayLike.setAutoCommit(false);
            lock.setObject(1, held);
            lock.executeQuery().close();
            sweep.sweep().await().atMost(Duration.ofSeconds(30));
            assertThat(outboxRows(held)).as("held by another transaction during the sweep").isEqualTo(1);
            relayLike.rollback();
        }
        sweep.sweep().await().atMost(Duration.ofSeconds(30));
        assertThat(outboxRows(held)).as("released, past its retention").isZero();
    }

    /**
     * Around the application, in one transaction the relay cannot see (rolled back): the function deletes what is past
     * the cutoff, but never an unpublished row and nothing younger than a day, whatever cutoff is asked; the same holds
     * for the dedup records, asked by the application role.
     */
    @Test
    void theDatabaseNeverPrunesAnUnpublishedRowNorAnythingYoungerThanADay() throws Exception {
        String tenant = "t-" + UUID.randomUUID();
        try (var owner = Db.owner()) {
            owner.setAutoCommit(false);
            UUID neverPublished = outboxRow(owner, tenant, "now() - interval '30 days'", "NULL");
            UUID publishedAnHourAgo = outboxRow(owner, tenant, "now() - interval '2 hours'",
                    "now() - interval '1 hour'");
            UUID publishedTwoDaysAgo = outboxRow(owner, tenant, "now() - interval '3 days'",
                    "now() - interval '2 days'");
            try (var statement = owner.createStatement()) {
                statement.executeQuery("SELECT outbox_prune(now() + interval '1 day', 100000)").close();
            }
            assertThat(Db.count(owner, "SELECT count(*) FROM outbox WHERE event_id = ?", publishedTwoDaysAgo))
                    .as("published two days ago, cutoff tomorrow").isZero();
            assertThat(Db.count(owner, "SELECT count(*) FROM outbox WHERE event_id = ?", neverPublished))
                    .as("never published").isEqualTo(1);
            assertThat(Db.count(owner, "SELECT count(*) FROM outbox WHERE event_id = ?", publishedAnHourAgo))
                    .as("published an hour ago").isEqualTo(1);
            owner.rollback();
        }
        UUID processedAnHourAgo = processedEvent("now() - interval '1 hour'");
        UUID processedTwoDaysAgo = processedEvent("now() - interval '2 days'");
        try (var app = Db.application(); var statement = app.createStatement()) {
            statement.executeQuery("SELECT processed_events_prune(now() + interval '1 day', 100000)").close();
        }
        assertThat(processedEvents(processedTwoDaysAgo)).as("processed two days ago").isZero();
        assertThat(processedEvents(processedAnHourAgo)).as("processed an hour ago").isEqualTo(1);
    }

    @Test
    void aDecisionDeliveredAgainAfterItsDedupRecordWasPrunedExecutesNothingTwice() throws Exception {
        TestTenant tenant = TestTenant.withCheckingWallet();
        ProposalMother proposal = ProposalMother.staged(kafka, tenant, "12.50");
        ObjectNode confirm = proposal.decided("confirm", proposal.tokenFromExecutor());
        UUID eventId = UUID.fromString(confirm.get("eventId").asText());
        kafka.send(Topics.ACTIONS_DECISIONS, proposal.actionId.toString(), Json.write(confirm));
        Db.awaitStatus(proposal.actionId, "executed");
        try (var owner = Db.owner();
                var age = owner.prepareStatement(
                        "UPDATE processed_events SET processed_at = now() - interval '15 days' WHERE event_id = ?")) {
            age.setObject(1, eventId);
            assertThat(age.executeUpdate()).isEqualTo(1);
        }
        sweep.sweep().await().atMost(Duration.ofSeconds(30));
        assertThat(processedEvents(eventId)).as("the decision's dedup record is gone").isZero();

        kafka.send(Topics.ACTIONS_DECISIONS, proposal.actionId.toString(), Json.write(confirm));
        await().atMost(Duration.ofSeconds(15)).until(() -> processedEvents(eventId) == 1);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> proposal.ledgerRows() == 1
                && "executed".equals(Db.status(proposal.actionId)));
    }

    private static UUID outboxRow(String tenant, String createdAt, String publishedAt) throws Exception {
        try (var owner = Db.owner()) {
            return outboxRow(owner, tenant, createdAt, publishedAt);
        }
    }

    private static UUID outboxRow(java.sql.Connection sql, String tenant, String createdAt, String publishedAt)
            throws Exception {
        UUID event = UUID.randomUUID();
        try (var insert = sql.prepareStatement(("INSERT INTO outbox (event_id, tenant_id,"
                + " topic, message_key, payload, created_at, published_at) VALUES (?, ?, 'countersign.actions.outcomes',"
                + " 'k', '{}', %s, %s)").formatted(createdAt, publishedAt))) {
            insert.setObject(1, event);
            insert.setString(2, tenant);
            insert.executeUpdate();
        }
        return event;
    }

    private static UUID processedEvent(String processedAt) throws Exception {
        UUID event = UUID.randomUUID();
        try (var owner = Db.owner();
                var insert = owner.prepareStatement(
                        "INSERT INTO processed_events (consumer, event_id, processed_at) VALUES ('test', ?, %s)"
                                .formatted(processedAt))) {
            insert.setObject(1, event);
            insert.executeUpdate();
        }
        return event;
    }

    private static int outboxRows(UUID event) throws Exception {
        return Db.count("SELECT count(*) FROM outbox WHERE event_id = ?", event);
    }

    private static int processedEvents(UUID event) throws Exception {
        return Db.count("SELECT count(*) FROM processed_events WHERE event_id = ?", event);
    }
}
