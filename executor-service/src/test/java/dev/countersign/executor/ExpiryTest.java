package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.ContractFixtures;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
@ExecutorTestResources
class ExpiryTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    @Test
    void anUndecidedProposalExpiresOnItsOwnAndIsAnnounced() throws Exception {
        var proposal = new ProposalMother(tenant, "12.50");
        proposal.event.put("requestedTtlSeconds", 1);

        proposal.send(kafka);

        Db.awaitStatus(proposal.actionId, "expired");
        var expired = kafka.awaitAny(Topics.ACTIONS_OUTCOMES,
                value -> value.contains(proposal.actionId.toString()) && value.contains("ActionExpired"));
        assertThat(expired).hasSize(1);
        assertThat(ContractFixtures.memberNames(Json.mapper().readTree(expired.get(0))))
                .containsExactlyInAnyOrderElementsOf(ContractFixtures.memberNames(ContractFixtures.ACTION_EXPIRED));
        given().header("Authorization", "Bearer " + tenant.executorBearer("alice"))
                .get("/api/actions/{id}/history", proposal.actionId)
                .then().statusCode(200)
                .body("to", contains("proposed", "expired"))
                .body("actor", contains("alice", "system"))
                .body("channel", contains("agent", "sweep"))
                .body("reason[1]", equalTo("the decision window closed"));
    }

    @Test
    void aProposalWithTimeLeftIsNotSwept() throws Exception {
        var proposal = new ProposalMother(tenant, "12.50");

        proposal.stage(kafka);

        // Longer than the sweep interval the test profile sets: the sweep ran and left it alone.
        dev.countersign.devsupport.testing.Waits.await().during(java.time.Duration.ofMillis(1_500))
                .atMost(java.time.Duration.ofSeconds(3))
                .until(() -> "proposed".equals(Db.status(proposal.actionId)));
    }
}
