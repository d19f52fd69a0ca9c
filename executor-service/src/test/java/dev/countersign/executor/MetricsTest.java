package dev.countersign.executor;

import static dev.countersign.devsupport.testing.Waits.await;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.devsupport.testing.MetricsText;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The action metrics at {@code /q/metrics} move by exactly what an action's moves and a rejection did (counted after
 * each commit, so the test waits for the count, not only for the row).
 */
@QuarkusTest
@ExecutorTestResources
class MetricsTest {

    private static final String EXPENSE = "kind=\"" + ShippedKinds.CREATE_TRANSACTION + "\"";

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    @Test
    void stagingConfirmingAndARejectionMoveTheirCountersAndTheLatencyHistogramByOne() throws Exception {
        double proposed = metric("countersign_actions_total", EXPENSE, "tier=\"low\"", "status=\"proposed\"");
        double executed = metric("countersign_actions_total", EXPENSE, "tier=\"low\"", "status=\"executed\"");
        double latencies = metric("countersign_action_confirm_to_executed_seconds_count", EXPENSE);
        double rejected = metric("countersign_proposals_rejected_total", "reason=\"validation_failed\"");
        double autoApplied = metric("countersign_actions_auto_applied_total", EXPENSE);

        var proposal = ProposalMother.staged(kafka, tenant, "12.50");
        awaitMetric(proposed + 1, "countersign_actions_total", EXPENSE, "tier=\"low\"", "status=\"proposed\"");
        proposal.decide("confirm", tenant.executorBearer("alice")).then().statusCode(200);
        awaitMetric(executed + 1, "countersign_actions_total", EXPENSE, "tier=\"low\"", "status=\"executed\"");
        awaitMetric(latencies + 1, "countersign_action_confirm_to_executed_seconds_count", EXPENSE);

        var invalid = new ProposalMother(tenant, "12.50");
        invalid.params().put("amount", "-5.00");
        invalid.rehash().send(kafka);
        awaitMetric(rejected + 1, "countersign_proposals_rejected_total", "reason=\"validation_failed\"");

        assertThat(metric("countersign_actions_total", EXPENSE, "tier=\"low\"", "status=\"proposed\""))
                .isEqualTo(proposed + 1);
        assertThat(metric("countersign_actions_auto_applied_total", EXPENSE)).isEqualTo(autoApplied);
        assertThat(metric("countersign_action_confirm_to_executed_seconds_bucket", EXPENSE, "le=\"+Inf\""))
                .isGreaterThanOrEqualTo(latencies + 1);
    }

    @Test
    void anActionAppliedOnArrivalCountsAsAutoAppliedAndExecuted() throws Exception {
        TenantPolicies.set(tenant.id(), "agent-writes", Map.of("mode", "enabled"));
        double autoApplied = metric("countersign_actions_auto_applied_total", EXPENSE);
        double executed = metric("countersign_actions_total", EXPENSE, "tier=\"low\"", "status=\"executed\"");

        var small = new ProposalMother(tenant, "12.50");
        small.send(kafka);
        Db.awaitStatus(small.actionId, "executed");

        awaitMetric(autoApplied + 1, "countersign_actions_auto_applied_total", EXPENSE);
        awaitMetric(executed + 1, "countersign_actions_total", EXPENSE, "tier=\"low\"", "status=\"executed\"");
    }

    private static void awaitMetric(double expected, String name, String... labels) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(metric(name, labels))
                .isEqualTo(expected));
    }

    /** The value of the series {@code name} having all {@code labels} (0 if it does not exist yet). */
    private static double metric(String name, String... labels) {
        return MetricsText.value(given().get(Management.url("/metrics")).then().statusCode(200).extract().asString(),
                name, labels);
    }
}
