package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.Topics;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The editable fields of each kind live once, in the catalogue. The agent's tools offer exactly them (ToolsTest); here:
 * the executor's validation accepts exactly them, the staged snapshot holds a "before" for each, and the diff a person
 * approves pairs exactly the ones the proposal sets. A wallet's currency is never editable and a wallet has no delete.
 */
@QuarkusTest
@ExecutorTestResources
class EditableFieldsTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    private UUID transaction() throws SQLException {
        return tenant.coffee("3.50");
    }

    /** Every editable field of {@code kind} set to a valid new value, plus the target's id. */
    private ObjectNode everyEditableField(String kind, String idParam, UUID target) {
        Map<String, String> values = Map.of("amount", "4.20", "category", "tea", "description", "green",
                "occurredOn", "2026-11-02", "name", "Renamed", "goal", "10k", "startsOn", "2026-12-07",
                "schedule", "Tue: swim");
        ObjectNode params = Json.mapper().createObjectNode().put(idParam, target.toString());
        for (String field : ActionCatalogue.find(kind).orElseThrow().editableFields()) {
            params.put(field, values.get(field));
        }
        return params;
    }

    @Test
    void theDiffAndTheSnapshotCoverExactlyTheCataloguesEditableFields() throws Exception {
        var cases = List.of(
                List.of(ShippedKinds.EDIT_TRANSACTION, "transactionId", transaction()),
                List.of(ShippedKinds.RENAME_WALLET, "walletId", tenant.wallet()),
                List.of(ShippedKinds.REVISE_PLAN, "planId", tenant.plan("alice", "draft")));
        for (var each : cases) {
            String kind = (String) each.get(0);
            var proposal = new ProposalMother(tenant, kind, everyEditableField(kind, (String) each.get(1),
                    (UUID) each.get(2))).stage(kafka);
            var view = given().header("Authorization", "Bearer " + tenant.executorBearer("alice"))
                    .get("/api/actions/{id}", proposal.actionId).then().statusCode(200).extract().jsonPath();

            var editable = ActionCatalogue.find(kind).orElseThrow().editableFields();
            assertThat(view.getList("diff.field", String.class)).as(kind).containsExactlyInAnyOrderElementsOf(editable);
            assertThat(view.getMap("targetBefore").keySet()).as(kind).containsAll(editable);
            for (String field : editable) {
                assertThat(view.getString("diff.find { it.field == '%s' }.before".formatted(field))).as(kind + field)
                        .isEqualTo(view.getString("targetBefore." + field));
            }
        }
    }

    @Test
    void theExecutorRefusesAFieldTheCatalogueDoesNotListAsEditable() throws Exception {
        var currency = new ProposalMother(tenant, ShippedKinds.RENAME_WALLET, Json.mapper().createObjectNode()
                .put("walletId", tenant.wallet().toString()).put("name", "X").put("currency", "USD"));
        var wallet = new ProposalMother(tenant, ShippedKinds.EDIT_TRANSACTION, Json.mapper().createObjectNode()
                .put("transactionId", transaction().toString()).put("walletId", tenant.wallet().toString()));
        for (var proposal : List.of(currency, wallet)) {
            proposal.send(kafka);
            assertThat(kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(proposal.actionId.toString())))
                    .singleElement().asString().contains("ActionRejected").contains("validation_failed")
                    .contains("is not a parameter of");
        }
        assertThat(ActionCatalogue.find(ShippedKinds.RENAME_WALLET).orElseThrow().editableFields())
                .containsExactly("name");
        // No declaration lets an action change a wallet's currency; the database refuses it whoever writes.
        assertThat(ActionCatalogue.all()).allSatisfy(kind -> assertThat(kind.editableFields()).as(kind.kind())
                .doesNotContain("currency"));
        try (var owner = Db.owner()) {
            assertThatThrownBy(() -> owner.createStatement().executeUpdate(
                    "UPDATE wallets SET currency = 'USD' WHERE id = '" + tenant.wallet() + "'"))
                    .hasMessageContaining("currency never changes");
        }
    }
}
