package dev.countersign.executor;

import static dev.countersign.devsupport.testing.Waits.await;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
@ExecutorTestResources
class ActionListTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private TestTenant tenant;
    private String alice;
    private final List<ProposalMother> staged = new ArrayList<>();

    @BeforeEach
    void fiveStagedActions() throws Exception {
        tenant = TestTenant.withCheckingWallet();
        alice = tenant.executorBearer("alice");
        for (int i = 0; i < 5; i++) {
            var proposal = new ProposalMother(tenant, (i + 1) + ".00");
            proposal.event.put("conversationId", i < 2 ? "c-a" : "c-b");
            proposal.send(kafka);
            staged.add(proposal);
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> Db.count(
                "SELECT count(*) FROM actions WHERE tenant_id = ?", tenant.id()) == 5);
    }

    @Test
    void pagesWalkEveryActionOnceNewestFirst() {
        List<String> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            var request = given().header("Authorization", "Bearer " + alice).queryParam("limit", 2);
            if (cursor != null) {
                request.queryParam("cursor", cursor);
            }
            var page = request.get("/api/actions").then().statusCode(200).extract().jsonPath();
            seen.addAll(page.getList("items.id"));
            cursor = page.getString("nextCursor");
            pages++;
        } while (cursor != null);

        assertThat(pages).isEqualTo(3);
        assertThat(seen).hasSize(5).doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(staged.stream().map(p -> p.actionId.toString()).toList());
    }

    @Test
    void filtersNarrowByConversationAndStatus() throws Exception {
        var first = staged.get(0);
        given().contentType("application/json").header("Authorization", "Bearer " + alice)
                .body("{}").post("/api/actions/{id}/cancel", first.actionId)
                .then().statusCode(200);

        given().header("Authorization", "Bearer " + alice).queryParam("conversation", "c-a").get("/api/actions")
                .then().statusCode(200).body("items", hasSize(2));
        given().header("Authorization", "Bearer " + alice).queryParam("status", "cancelled").get("/api/actions")
                .then().statusCode(200).body("items", hasSize(1)).body("items[0].id", equalTo(first.actionId
                        .toString()));
        given().header("Authorization", "Bearer " + alice).queryParam("status", "proposed")
                .queryParam("kind", "ledger.transaction.create").get("/api/actions")
                .then().statusCode(200).body("items", hasSize(4));
    }

    @Test
    void anotherTenantSeesNoneOfThem() {
        String mallory = TestProperties.executorBearer("other-" + UUID.randomUUID(), "mallory");

        given().header("Authorization", "Bearer " + mallory).get("/api/actions")
                .then().statusCode(200).body("items", hasSize(0));
    }

    @Test
    void badFiltersAreValidationProblems() {
        for (String[] query : new String[][]{{"status", "done"}, {"cursor", "not-a-cursor"},
                {"limit", "0"}, {"limit", "201"}, {"limit", "abc"}}) {
            given().header("Authorization", "Bearer " + alice).queryParam(query[0], query[1]).get("/api/actions")
                    .then().statusCode(400).contentType("application/problem+json")
                    .body("code", equalTo("validation_failed"));
        }
    }

    /** PostgreSQL refuses a NUL in text (22021): a filter naming one once answered 500. */
    @Test
    void aFilterWithANulByteIsAValidationProblemNotAServerError() {
        for (String parameter : new String[]{"kind", "conversation"}) {
            // Sent as written: %00 on the wire, decoded to a NUL by the server.
            given().urlEncodingEnabled(false).header("Authorization", "Bearer " + alice)
                    .queryParam(parameter, "c-a%00x").get("/api/actions")
                    .then().statusCode(400).contentType("application/problem+json")
                    .body("code", equalTo("validation_failed")).body("status", equalTo(400));
        }
    }
}
