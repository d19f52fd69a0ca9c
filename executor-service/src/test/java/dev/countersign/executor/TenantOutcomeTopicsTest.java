package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Topics;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A listed tenant's outcomes also go to its own topic, which only its integration principal may read (the ACLs:
 * KafkaAclBrokerTest); another tenant's never do. The test profile lists {@code t-integrated}.
 */
@QuarkusTest
@ExecutorTestResources
class TenantOutcomeTopicsTest {

    private static final String LISTED = "t-integrated";

    private final TopicRecords kafka = TopicRecords.fromTestProperties();

    @Test
    void aListedTenantsOutcomesReachItsOwnTopicAndNoOtherTenantsDo() throws Exception {
        UUID wallet;
        try (var owner = Db.owner()) {
            wallet = DemoData.createWallet(owner, LISTED, "alice", "Checking " + UUID.randomUUID(), "EUR");
        }
        ProposalMother listed = ProposalMother.staged(kafka, LISTED, wallet, "4.20");
        TestTenant other = TestTenant.withCheckingWallet();
        ProposalMother unlisted = ProposalMother.staged(kafka, other, "4.20");

        assertThat(kafka.awaitAny(Topics.tenantOutcomes(LISTED),
                value -> value.contains(listed.actionId.toString()) && value.contains("ActionStaged"))).hasSize(1);
        // Both outcomes are on the shared topic; the unlisted tenant's, published in the same runs, is on no tenant
        // topic (the listed one holds only its tenant's).
        assertThat(kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(unlisted.actionId.toString())))
                .isNotEmpty();
        assertThat(kafka.readFor(Topics.tenantOutcomes(LISTED), value -> !value.contains("\"" + LISTED + "\""),
                Duration.ofSeconds(1))).isEmpty();
    }
}
