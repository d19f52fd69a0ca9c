package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.equalTo;

import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.Groups;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.Race;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The transfer kind: both legs written together, or none; a transfer touching another person's wallet decided by that
 * person (or an approver), never by the requester alone; HIGH at the threshold; two currencies refused; undo reverses
 * both legs; the database keeps the ledger balanced and its legs unchangeable, whoever writes (the last test goes
 * around the application).
 */
@QuarkusTest
@ExecutorTestResources
class TransferTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;
    private UUID savings;
    private UUID bobs;
    private UUID dollars;

    @BeforeEach
    void wallets() throws Exception {
        tenant = TestTenant.withCheckingWallet();
        try (var owner = Db.owner()) {
            savings = DemoData.createWallet(owner, tenant.id(), "alice", "Savings", "EUR");
            bobs = DemoData.createWallet(owner, tenant.id(), "bob", "Bob's", "EUR");
            dollars = DemoData.createWallet(owner, tenant.id(), "alice", "Dollars", "USD");
        }
    }

    private ObjectNode transfer(UUID from, UUID to, String amount) {
        return Json.mapper().createObjectNode().put("fromWalletId", from.toString()).put("toWalletId", to.toString())
                .put("amount", amount).put("occurredOn", "2026-12-01");
    }

    private ProposalMother staged(ObjectNode params) throws Exception {
        return new ProposalMother(tenant, ShippedKinds.TRANSFER, params).stage(kafka);
    }

    private static String legs(UUID transfer) throws SQLException {
        try (var owner = Db.owner()) {
            return Db.text(owner, "SELECT string_agg(leg || ':' || amount, ' ' ORDER BY leg) FROM wallet_transfer_legs"
                    + " WHERE transfer_id = ?", transfer);
        }
    }

    @Test
    void aTransferBetweenOnesOwnWalletsWritesBothLegsAndUndoReversesBoth() throws Exception {
        var proposal = staged(transfer(tenant.wallet(), savings, "20.00"));
        String alice = tenant.bearer("alice", Groups.USER);
        given().header("Authorization", "Bearer " + alice).get("/api/actions/{id}", proposal.actionId).then()
                .statusCode(200).body("tier", equalTo("medium"))
                .body("headline", equalTo("Move 20.00 from \"Checking\" to \"Savings\" on 2026-12-01"));

        proposal.decide("confirm", alice).then().statusCode(200).body("status", equalTo("executed"))
                .body("result.legs", equalTo(2)).body("result.currency", equalTo("EUR"));
        assertThat(legs(proposal.actionId)).isEqualTo("1:-20.00 2:20.00");

        given().header("Authorization", "Bearer " + alice).post("/api/actions/{id}/undo", proposal.actionId).then()
                .statusCode(200).body("status", equalTo("undone"));
        assertThat(legs(proposal.actionId)).isEqualTo("1:-20.00 2:20.00 3:20.00 4:-20.00");
        given().header("Authorization", "Bearer " + alice).post("/api/actions/{id}/undo", proposal.actionId).then()
                .statusCode(409);
    }

    /** Exactly once, as for every kind: racing confirms write one transfer; racing undos reverse it once. */
    @Test
    void racingConfirmsWriteOneTransferAndRacingUndosReverseItOnce() throws Exception {
        var proposal = staged(transfer(tenant.wallet(), savings, "11.00"));
        String alice = tenant.bearer("alice", Groups.USER);

        List<Integer> confirms = Race.times(16, () -> proposal.decide("confirm", alice).statusCode());
        assertThat(confirms).filteredOn(status -> status == 200).hasSize(1);
        assertThat(confirms).filteredOn(status -> status == 409).hasSize(15);
        assertThat(legs(proposal.actionId)).isEqualTo("1:-11.00 2:11.00");

        List<Integer> undos = Race.times(8, () -> given().header("Authorization", "Bearer " + alice)
                .post("/api/actions/{id}/undo", proposal.actionId).statusCode());
        assertThat(undos).filteredOn(status -> status == 200).hasSize(1);
        assertThat(undos).filteredOn(status -> status == 409).hasSize(7);
        assertThat(legs(proposal.actionId)).isEqualTo("1:-11.00 2:11.00 3:11.00 4:-11.00");
    }

    @Test
    void moneyLeavingForAnotherPersonsWalletNeedsThatPersonNotTheRequester() throws Exception {
        var proposal = staged(transfer(tenant.wallet(), bobs, "15.00"));
        given().header("Authorization", "Bearer " + tenant.bearer("bob", Groups.USER))
                .get("/api/actions/{id}", proposal.actionId).then().statusCode(200)
                .body("headline", equalTo("Move 15.00 from \"Checking\" to bob's \"Bob's\" on 2026-12-01"));

        proposal.decide("confirm", tenant.bearer("alice", Groups.USER)).then().statusCode(403)
                .body("code", equalTo("forbidden"));
        assertThat(legs(proposal.actionId)).isNull();
        proposal.decide("confirm", tenant.bearer("bob", Groups.USER)).then().statusCode(200)
                .body("status", equalTo("executed"));
        assertThat(legs(proposal.actionId)).isEqualTo("1:-15.00 2:15.00");
    }

    /**
     * Between two other people's wallets a transfer is theirs to ask for; a wallet of another tenant does not exist.
     */
    @Test
    void aTransferNeitherFromNorToTheRequestersWalletOrToAnotherTenantIsRefused() throws Exception {
        UUID carols;
        UUID elsewhere;
        try (var owner = Db.owner()) {
            carols = DemoData.createWallet(owner, tenant.id(), "carol", "Carol's", "EUR");
            elsewhere = DemoData.createWallet(owner, "t-" + UUID.randomUUID(), "alice", "Elsewhere", "EUR");
        }
        var betweenOthers = new ProposalMother(tenant, ShippedKinds.TRANSFER, transfer(bobs, carols, "5.00"));
        var otherTenant = new ProposalMother(tenant, ShippedKinds.TRANSFER, transfer(tenant.wallet(), elsewhere,
                "5.00"));
        betweenOthers.send(kafka);
        otherTenant.send(kafka);

        assertThat(kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(betweenOthers.actionId.toString())))
                .singleElement().asString().contains("ActionRejected").contains("wallet_not_owned");
        assertThat(kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(otherTenant.actionId.toString())))
                .singleElement().asString().contains("ActionRejected").contains("target_not_found");
    }

    /** Money coming into the requester's wallet from another person's needs that person too. */
    @Test
    void moneyComingFromAnotherPersonsWalletNeedsThatPerson() throws Exception {
        var proposal = staged(transfer(bobs, tenant.wallet(), "9.00"));

        proposal.decide("confirm", tenant.bearer("alice", Groups.USER)).then().statusCode(403);
        proposal.decide("confirm", tenant.bearer("carol", Groups.USER, Groups.APPROVER)).then().statusCode(200)
                .body("status", equalTo("executed"));
        assertThat(legs(proposal.actionId)).isEqualTo("1:-9.00 2:9.00");
    }

    @Test
    void aTransferAtTheThresholdIsHigh() throws Exception {
        var proposal = staged(transfer(tenant.wallet(), savings, "500.00"));

        given().header("Authorization", "Bearer " + tenant.bearer("alice", Groups.USER))
                .get("/api/actions/{id}", proposal.actionId).then().statusCode(200).body("tier", equalTo("high"));
    }

    @Test
    void walletsOfTwoCurrenciesAreRefusedAndNothingIsStaged() throws Exception {
        var refused = new ProposalMother(tenant, ShippedKinds.TRANSFER, transfer(tenant.wallet(), dollars, "5.00"));
        refused.send(kafka);

        assertThat(kafka.awaitAny(Topics.ACTIONS_OUTCOMES, value -> value.contains(refused.actionId.toString())))
                .singleElement().asString().contains("ActionRejected").contains("currency_mismatch");
        assertThat(Db.status(refused.actionId)).isNull();
    }

    /** Around the application: the owner role (which row-level security does not bind) cannot unbalance the ledger. */
    @Test
    void theDatabaseKeepsTheLedgerBalancedAndItsLegsUnchangeable() throws Exception {
        var proposal = staged(transfer(tenant.wallet(), savings, "7.00"));
        proposal.decide("confirm", tenant.bearer("alice", Groups.USER)).then().statusCode(200);
        UUID id = proposal.actionId;

        try (var owner = Db.owner()) {
            assertThatThrownBy(() -> owner.createStatement().executeUpdate(
                    "UPDATE wallet_transfer_legs SET amount = -8.00 WHERE leg = 1 AND transfer_id = '" + id + "'"))
                    .hasMessageContaining("append-only");
            assertThatThrownBy(() -> owner.createStatement().executeUpdate(
                    "DELETE FROM wallet_transfer_legs WHERE leg = 2 AND transfer_id = '" + id + "'"))
                    .hasMessageContaining("append-only");
            assertThatThrownBy(() -> owner.createStatement().executeUpdate(
                    "UPDATE wallet_transfers SET amount = 8.00 WHERE id = '" + id + "'"))
                    .hasMessageContaining("only ever reversed");
            // A reversal without its legs, a third leg, or a transfer without legs cannot commit.
            assertThatThrownBy(() -> owner.createStatement().executeUpdate(
                    "UPDATE wallet_transfers SET reversed_at = now() WHERE id = '" + id + "'"))
                    .hasMessageContaining("not balanced");
            assertThatThrownBy(() -> owner.createStatement().executeUpdate(("INSERT INTO wallet_transfer_legs"
                    + " (transfer_id, tenant_id, leg, wallet_id, amount) VALUES ('%s', '%s', 3, '%s', 7.00)")
                    .formatted(id, tenant.id(), tenant.wallet()))).hasMessageContaining("not balanced");
            assertThatThrownBy(() -> owner.createStatement().executeUpdate(("INSERT INTO wallet_transfers (id,"
                    + " tenant_id, from_wallet_id, to_wallet_id, amount, currency, occurred_on, source_action_id)"
                    + " VALUES (gen_random_uuid(), '%s', '%s', '%s', 1.00, 'EUR', current_date, gen_random_uuid())")
                    .formatted(tenant.id(), tenant.wallet(), savings))).hasMessageContaining("not balanced");
            // Balanced legs between wallets of two currencies cannot commit either.
            assertThatThrownBy(() -> owner.createStatement().executeUpdate(("""
                    WITH transfer AS (
                        INSERT INTO wallet_transfers (id, tenant_id, from_wallet_id, to_wallet_id, amount, currency,
                                                      occurred_on, source_action_id)
                        VALUES (gen_random_uuid(), '%1$s', '%2$s', '%3$s', 1.00, 'EUR', current_date, gen_random_uuid())
                        RETURNING id)
                    INSERT INTO wallet_transfer_legs (transfer_id, tenant_id, leg, wallet_id, amount)
                    SELECT id, '%1$s', v.leg, v.wallet, v.amount FROM transfer
                    CROSS JOIN (VALUES (1, '%2$s'::uuid, -1.00), (2, '%3$s'::uuid, 1.00)) AS v(leg, wallet, amount)""")
                    .formatted(tenant.id(), tenant.wallet(), dollars))).hasMessageContaining("do not both hold it");
            assertThatThrownBy(() -> owner.createStatement().executeUpdate("TRUNCATE wallet_transfer_legs"))
                    .hasMessageContaining("append-only");
        }
        assertThat(legs(id)).isEqualTo("1:-7.00 2:7.00");
    }
}
