package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;

import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Groups;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/**
 * Undo of a k-approved action needs k persons (docs/security/authorization.md, two persons for loosening): a HIGH
 * expense two approvers let run is put back only when two administrators asked; each ask before is recorded (202).
 * Before, one administrator undid it alone. Tokens carry only the groups each case names.
 */
@QuarkusTest
@ExecutorTestResources
class UndoApprovalsTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;

    @BeforeEach
    void tenantWithTwoApprovals() throws Exception {
        tenant = TestTenant.withCheckingWallet();
        TenantPolicies.set(tenant.id(), "approvals", "{\"highApprovals\":2,\"highNeedsOtherApprover\":true}");
    }

    private String token(String user, String... groups) {
        return tenant.bearer(user, groups);
    }

    private ValidatableResponse undo(ProposalMother proposal, String user) {
        return given().header("Authorization", "Bearer " + token(user, Groups.USER, Groups.ADMIN))
                .post("/api/actions/{id}/undo", proposal.actionId).then();
    }

    /** The expense's ledger rows not deleted (an undone create is deleted, and kept). */
    private static int liveRows(ProposalMother proposal) throws Exception {
        return Db.count("SELECT count(*) FROM transactions WHERE source_action_id = ? AND deleted_at IS NULL",
                proposal.actionId);
    }

    /** A HIGH expense in alice's wallet, approved by bob and carol: executed. */
    private ProposalMother approvedByTwo() throws Exception {
        ProposalMother high = ProposalMother.staged(kafka, tenant, "900.00");
        for (String approver : List.of("bob", "carol")) {
            high.decide("confirm", token(approver, Groups.USER, Groups.APPROVER));
        }
        assertThat(Db.status(high.actionId)).isEqualTo("executed");
        return high;
    }

    @Test
    void anActionTwoApproversLetRunIsUndoneOnlyWhenTwoAdministratorsAsk() throws Exception {
        ProposalMother high = approvedByTwo();

        undo(high, "erin").statusCode(202).body("undoApprovers", contains("erin")).body("required", equalTo(2))
                .body("action.status", equalTo("executed"));
        undo(high, "erin").statusCode(202).body("undoApprovers", contains("erin"));
        assertThat(liveRows(high)).isOne();

        undo(high, "frank").statusCode(200).body("status", equalTo("undone")).body("undoneBy", equalTo("frank"));
        assertThat(liveRows(high)).isZero();
        assertThat(Db.text("SELECT string_agg(approver, ',' ORDER BY approver) FROM undo_approvals"
                + " WHERE action_id = ?", high.actionId)).isEqualTo("erin,frank");
    }

    /** Who may not undo a HIGH action is not counted either: an approver who is no administrator is refused. */
    @Test
    void anAskTheDecisionRuleRefusesIsNotRecorded() throws Exception {
        ProposalMother high = approvedByTwo();
        given().header("Authorization", "Bearer " + token("bob", Groups.USER, Groups.APPROVER))
                .post("/api/actions/{id}/undo", high.actionId).then().statusCode(403);
        assertThat(Db.count("SELECT count(*) FROM undo_approvals WHERE action_id = ?", high.actionId)).isZero();
    }

    /** An action one person let run is undone by one, as before. */
    @Test
    void anActionOnePersonConfirmedIsUndoneByOne() throws Exception {
        ProposalMother small = ProposalMother.staged(kafka, tenant, "12.00");
        small.decide("confirm", token("alice", Groups.USER)).then().statusCode(200);
        given().header("Authorization", "Bearer " + token("alice", Groups.USER))
                .post("/api/actions/{id}/undo", small.actionId).then().statusCode(200)
                .body("status", equalTo("undone"));
    }
}
