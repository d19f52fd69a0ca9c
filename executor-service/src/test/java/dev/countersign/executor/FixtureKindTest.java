package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Groups;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A kind added the way docs/adding-an-action-kind.md says, from the tests' own folder only (its declaration, one line
 * of the tests' countersign/kinds.list, and kinds/fixture/wallet/shout/ShoutWalletKind): the gate proposes, decides,
 * executes and undoes it with no other file changed. Its tier, headline and label come from its declaration, its owner
 * and target from its executor part.
 */
@QuarkusTest
@ExecutorTestResources
class FixtureKindTest {

    private static final String SHOUT = "fixture.wallet.shout";

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    private String walletName() throws Exception {
        try (var owner = Db.owner()) {
            return Db.text(owner, "SELECT name FROM wallets WHERE id = ?", tenant.wallet());
        }
    }

    @Test
    void aKindFromATestFolderIsProposedDecidedExecutedAndUndone() throws Exception {
        assertThat(ActionCatalogue.find(SHOUT)).isPresent();
        String alice = tenant.bearer("alice", Groups.USER);
        var kinds = given().header("Authorization", "Bearer " + alice).get("/api/kinds").then().statusCode(200)
                .extract().jsonPath();
        assertThat(kinds.getString("find { it.kind == 'fixture.wallet.shout' }.label"))
                .isEqualTo("Shout a wallet's name");
        assertThat(kinds.getBoolean("find { it.kind == 'fixture.wallet.shout' }.undoable")).isTrue();

        var proposal = new ProposalMother(tenant, SHOUT, Json.mapper().createObjectNode()
                .put("walletId", tenant.wallet().toString()).put("reason", "payday")).stage(kafka);
        given().header("Authorization", "Bearer " + alice).get("/api/actions/{id}", proposal.actionId).then()
                .statusCode(200).body("status", equalTo("proposed")).body("tier", equalTo("medium"))
                .body("headline", equalTo("Shout \"Checking\" because payday"))
                .body("targetBefore.name", equalTo("Checking"));
        assertThat(walletName()).isEqualTo("Checking");

        proposal.decide("confirm", alice).then().statusCode(200).body("status", equalTo("executed"))
                .body("result.name", equalTo("CHECKING"));
        assertThat(walletName()).isEqualTo("CHECKING");

        given().header("Authorization", "Bearer " + alice).post("/api/actions/{id}/undo", proposal.actionId).then()
                .statusCode(200).body("status", equalTo("undone"));
        assertThat(walletName()).isEqualTo("Checking");
    }

    @Test
    void itsDeclarationRefusesWhatItDoesNotDeclare() throws Exception {
        var refused = new ProposalMother(tenant, SHOUT, Json.mapper().createObjectNode()
                .put("walletId", tenant.wallet().toString()).put("name", "MINE"));
        refused.send(kafka);

        assertThat(kafka.awaitAny(Topics.ACTIONS_OUTCOMES,
                value -> value.contains(refused.actionId.toString()))).singleElement().asString()
                .contains("ActionRejected").contains("is not a parameter of fixture.wallet.shout");
        assertThat(Db.status(refused.actionId)).isNull();
        assertThat(walletName()).isEqualTo("Checking");
    }
}
