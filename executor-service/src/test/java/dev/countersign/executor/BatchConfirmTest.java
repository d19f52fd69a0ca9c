package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasSize;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

@QuarkusTest
@ExecutorTestResources
class BatchConfirmTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;
    private String alice;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
        alice = tenant.executorBearer("alice");
    }

    private List<ProposalMother> staged(int count, UUID walletId) throws Exception {
        List<ProposalMother> proposals = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            var proposal = new ProposalMother(tenant.id(), walletId, (i + 1) + ".00");
            proposal.send(kafka);
            proposals.add(proposal);
        }
        for (var proposal : proposals) {
            Db.awaitStatus(proposal.actionId, "proposed");
        }
        return proposals;
    }

    private ValidatableResponse confirmBatch(List<ProposalMother> proposals) {
        return confirmBatch(proposals, alice);
    }

    private ValidatableResponse confirmBatch(List<ProposalMother> proposals, String bearer) {
        ObjectNode body = Json.mapper().createObjectNode();
        ArrayNode items = body.putArray("items");
        for (ProposalMother proposal : proposals) {
            items.addObject().put("actionId", proposal.actionId.toString()).put("paramsHash", proposal.paramsHash());
        }
        return given().contentType("application/json").header("Authorization", "Bearer " + bearer)
                .body(Json.write(body)).post("/api/actions/confirm-batch").then();
    }

    private int ledgerRows(List<ProposalMother> proposals) throws Exception {
        int rows = 0;
        for (var proposal : proposals) {
            rows += proposal.ledgerRows();
        }
        return rows;
    }

    @Test
    void aBatchExecutesEveryActionOnce() throws Exception {
        var proposals = staged(3, tenant.wallet());

        confirmBatch(proposals).statusCode(200).body("$", hasSize(3)).body("status", everyItem(equalTo("executed")));

        assertThat(ledgerRows(proposals)).isEqualTo(3);
        confirmBatch(proposals).statusCode(409).body("code", equalTo("batch_refused"));
        assertThat(ledgerRows(proposals)).isEqualTo(3);
    }

    @Test
    void oneActionTheCallerMayNotDecideStopsTheWholeBatch() throws Exception {
        // dave, no approver, asked for the first and the last, in his own wallet; the middle one is alice's.
        UUID davesWallet;
        try (var owner = Db.owner()) {
            davesWallet = DemoData.createWallet(owner, tenant.id(), "dave", "Dave's", "EUR");
        }
        var proposals = List.of(new ProposalMother(tenant.id(), davesWallet, "1.00").by("dave"),
                new ProposalMother(tenant.id(), tenant.wallet(), "2.00"),
                new ProposalMother(tenant.id(), davesWallet, "3.00").by("dave"));
        for (var proposal : proposals) {
            proposal.stage(kafka);
        }
        String dave = TestProperties.executorBearerWithoutApproval(tenant.id(), "dave");

        confirmBatch(proposals, dave).statusCode(409).contentType("application/problem+json")
                .body("code", equalTo("batch_refused"))
                .body("violations", hasSize(1))
                .body("violations[0].field", equalTo(proposals.get(1).actionId.toString()))
                .body("violations[0].message", equalTo("forbidden"));

        assertThat(ledgerRows(proposals)).isZero();
        for (var proposal : proposals) {
            assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
        }
        confirmBatch(List.of(proposals.get(0), proposals.get(2)), dave).statusCode(200);
    }

    @Test
    void oneWriteThatIsRefusedStopsTheWholeBatchAndFailsNothing() throws Exception {
        var good = staged(2, tenant.wallet());
        // Its wallet exists when it is staged and is gone when the batch is confirmed.
        UUID shortLived;
        try (var owner = Db.owner()) {
            shortLived = DemoData.createWallet(owner, tenant.id(), "alice", "Short-lived", "EUR");
        }
        var orphan = staged(1, shortLived);
        try (var owner = Db.owner()) {
            owner.createStatement().executeUpdate("DELETE FROM wallets WHERE id = '" + shortLived + "'");
        }
        List<ProposalMother> batch = new ArrayList<>(good);
        batch.addAll(orphan);

        confirmBatch(batch).statusCode(409).body("code", equalTo("batch_refused"))
                .body("violations[0].message", equalTo("cannot be written: target_not_found"));

        assertThat(ledgerRows(batch)).isZero();
        for (var proposal : batch) {
            assertThat(Db.status(proposal.actionId)).isEqualTo("proposed");
        }
    }

    @Test
    void everyItemMustNameTheParametersItsPersonWasShown() throws Exception {
        var proposals = staged(2, tenant.wallet());
        ObjectNode body = Json.mapper().createObjectNode();
        ArrayNode items = body.putArray("items");
        items.addObject().put("actionId", proposals.get(0).actionId.toString())
                .put("paramsHash", proposals.get(0).paramsHash());
        items.addObject().put("actionId", proposals.get(1).actionId.toString());

        given().contentType("application/json").header("Authorization", "Bearer " + alice).body(Json.write(body))
                .post("/api/actions/confirm-batch").then().statusCode(400).contentType("application/problem+json")
                .body("code", equalTo("params_hash_required"));
        assertThat(ledgerRows(proposals)).isZero();

        ((ObjectNode) items.get(1)).put("paramsHash", proposals.get(0).paramsHash());
        given().contentType("application/json").header("Authorization", "Bearer " + alice).body(Json.write(body))
                .post("/api/actions/confirm-batch").then().statusCode(409).body("code", equalTo("batch_refused"))
                .body("violations[0].field", equalTo(proposals.get(1).actionId.toString()))
                .body("violations[0].message", equalTo("params_mismatch"));
        assertThat(ledgerRows(proposals)).isZero();

        confirmBatch(proposals).statusCode(200).body("status", everyItem(equalTo("executed")));
    }

    @Test
    void aBatchNamesEachActionOnce() throws Exception {
        var proposals = staged(1, tenant.wallet());

        confirmBatch(List.of(proposals.get(0), proposals.get(0))).statusCode(400)
                .body("code", equalTo("validation_failed"))
                .body("detail", equalTo("Each action may appear only once."));
        given().contentType("application/json").header("Authorization", "Bearer " + alice).body("{\"items\":[]}")
                .post("/api/actions/confirm-batch").then().statusCode(400)
                .body("violations[0].message", equalTo("must hold 1 to 50 items"));
        given().contentType("application/json").header("Authorization", "Bearer " + alice)
                .body("{\"items\":[{\"actionId\":\"" + proposals.get(0).actionId + "\"},{\"paramsHash\":\"x\"}]}")
                .post("/api/actions/confirm-batch").then().statusCode(400).body("code", equalTo("validation_failed"))
                .body("violations.field", org.hamcrest.Matchers.contains("items[1].actionId"))
                .body("violations.message", org.hamcrest.Matchers.contains("must name the action"));
        given().contentType("application/json").header("Authorization", "Bearer " + alice)
                .body("{\"items\":[null]}").post("/api/actions/confirm-batch").then().statusCode(400)
                .body("violations.field", org.hamcrest.Matchers.contains("items[0]"));
    }
}
