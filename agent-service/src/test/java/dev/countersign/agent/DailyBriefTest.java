package dev.countersign.agent;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.TextStyle;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.countersign.agent.brief.BriefConversation;
import dev.countersign.agent.brief.BriefSchedule;
import dev.countersign.agent.evidence.ReaderGrants;
import dev.countersign.contracts.Topics;
import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;

/** The daily brief: what it reads, the window since the last recorded brief, and the scheduled run's recording. */
@QuarkusTest
@AgentTestResources
class DailyBriefTest {

    /** The one tenant the test profile names in countersign.brief.tenants. */
    private static final String CONFIGURED_TENANT = "t-brief-configured";

    private final TopicRecords kafka = TopicRecords.fromTestProperties();

    @Inject
    BriefSchedule schedule;
    @Inject
    ReaderGrants grants;

    private static JsonPath brief(AgentFixtures fixtures) {
        return given().header("Authorization", "Bearer " + fixtures.bearer).get("/api/brief").then().statusCode(200)
                .extract().jsonPath();
    }

    /** The tenant's conversation ledger rows as the owner sees them: user -> number of rows. */
    private static Map<String, Integer> ledgerRows(String tenant, String conversation) throws Exception {
        Map<String, Integer> rows = new HashMap<>();
        try (var owner = TestProperties.ownerConnection();
                PreparedStatement query = owner.prepareStatement(
                        "SELECT user_id, count(*) FROM conversation_events WHERE tenant_id = ?"
                                + " AND (?::text IS NULL OR conversation_id = ?) GROUP BY user_id")) {
            query.setString(1, tenant);
            query.setString(2, conversation);
            query.setString(3, conversation);
            try (ResultSet result = query.executeQuery()) {
                while (result.next()) {
                    rows.put(result.getString(1), result.getInt(2));
                }
            }
        }
        return rows;
    }

    @Test
    void theBriefSumsConfirmedRowsPerCategoryAndCurrencyAndSaysHowManyUnconfirmedItLeftOut() throws Exception {
        var fixtures = new AgentFixtures();
        UUID travel;
        try (var owner = TestProperties.ownerConnection()) {
            travel = DemoData.createWallet(owner, fixtures.tenant, "alice", "Travel", "USD");
        }
        LocalDate today = LocalDate.now();
        fixtures.transaction(fixtures.checking, "3.50", "coffee", null, today);
        fixtures.transaction(fixtures.savings, "4.25", "Coffee", null, today.minusDays(3));
        fixtures.transaction(fixtures.checking, "80.00", "groceries", null, today);
        fixtures.transaction(travel, "20.00", "coffee", null, today);
        fixtures.delete(fixtures.transaction(fixtures.checking, "9.00", "coffee", null, today));
        fixtures.unconfirmedTransaction(fixtures.checking, "99.00", "coffee");

        JsonPath brief = brief(fixtures);

        assertThat(brief.getList("spending", Map.class)).containsExactly(
                Map.of("category", "groceries", "currency", "EUR", "total", "80.00", "transactions", 1),
                Map.of("category", "coffee", "currency", "EUR", "total", "7.75", "transactions", 2),
                Map.of("category", "coffee", "currency", "USD", "total", "20.00", "transactions", 1));
        assertThat(brief.getList("totals", Map.class)).extracting(t -> t.get("currency") + " " + t.get("total"))
                .containsExactly("EUR 87.75", "USD 20.00");
        assertThat(brief.getLong("unconfirmedLeftOut")).isEqualTo(1);
        // No brief recorded yet: the first window.
        assertThat(Duration.between(Instant.parse(brief.getString("from")), Instant.parse(brief.getString("to"))))
                .isBetween(Duration.ofHours(24).minusMinutes(1), Duration.ofHours(24).plusMinutes(1));
    }

    @Test
    void spendingIsWhatWasRecordedSinceTheLastRecordedBriefAndAskingRecordsNothing() throws Exception {
        var fixtures = new AgentFixtures();
        fixtures.transaction(fixtures.checking, "3.50", "coffee", null, LocalDate.now());
        LocalDate today = LocalDate.now();
        SignedIn.as(grants, fixtures.tenant, "alice");
        assertThat(schedule.record(fixtures.tenant, "alice", today)).isTrue();
        Instant recordedAt;
        try (var owner = TestProperties.ownerConnection();
                PreparedStatement query = owner.prepareStatement(
                        "SELECT occurred_at FROM conversation_events WHERE event_id = ?")) {
            query.setObject(1, BriefConversation.eventId(fixtures.tenant, "alice", today));
            try (ResultSet result = query.executeQuery()) {
                assertThat(result.next()).isTrue();
                recordedAt = result.getTimestamp(1).toInstant();
            }
        }
        // Back-dated, but recorded after the brief: it belongs to the next one.
        fixtures.transaction(fixtures.checking, "6.00", "groceries", null, LocalDate.now().minusDays(2));

        JsonPath brief = brief(fixtures);
        brief(fixtures);

        assertThat(Instant.parse(brief.getString("from"))).isEqualTo(recordedAt);
        assertThat(brief.getList("spending.category")).containsExactly("groceries");
        assertThat(brief.getList("totals.total")).containsExactly("6.00");
        assertThat(ledgerRows(fixtures.tenant, null)).isEqualTo(Map.of("alice", 1));
    }

    @Test
    void theUsersPendingActionsAndTheActivePlansNextWorkoutsAppear() throws Exception {
        var fixtures = new AgentFixtures();
        LocalDate today = LocalDate.now();
        String week = IntStream.range(0, 7).mapToObj(today::plusDays)
                .map(day -> day.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH) + ": run "
                        + day.getDayOfWeek().getValue() + " km")
                .collect(Collectors.joining("\n", "", "\nNotes: hydrate"));
        fixtures.plan("alice", "Marathon block", "active", week);
        fixtures.plan("alice", "Spring draft", "draft", "Tue: intervals");
        fixtures.plan("bob", "Bob's plan", "active", "Wed: swim");
        UUID waiting = fixtures.action("alice", "proposed", "Rename wallet to Everyday");
        fixtures.action("alice", "cancelled", "Add an expense of 3.50");
        fixtures.action("alice", "proposed", "A proposal whose window closed", true);
        fixtures.action("bob", "proposed", "Bob's rename");

        JsonPath brief = brief(fixtures);

        assertThat(brief.getList("pendingActions.id")).containsExactly(waiting.toString());
        assertThat(brief.getString("training.name")).isEqualTo("Marathon block");
        assertThat(brief.getList("training.nextWorkouts.on")).hasSize(7).first().isEqualTo(today.toString());
        assertThat(brief.getString("training.nextWorkouts[0].text")).isEqualTo(
                today.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH) + ": run "
                        + today.getDayOfWeek().getValue() + " km");
        assertThat(brief.getList("training.nextWorkouts.text", String.class)).noneMatch(t -> t.contains("hydrate"));
    }

    @Test
    void theScheduledRunRecordsOneBriefPerSignedInUserOnceWhenTriggeredTwice() throws Exception {
        var fixtures = new AgentFixtures(CONFIGURED_TENANT);
        fixtures.transaction(fixtures.checking, "12.50", "coffee", null, LocalDate.now());
        fixtures.action("bob", "proposed", "Bob's rename");
        fixtures.action("carol", "proposed", "Carol's rename");
        LocalDate today = LocalDate.now();
        // The agent reads only for people signed in to it: carol, who is not, gets no brief.
        SignedIn.as(grants, CONFIGURED_TENANT, "alice");
        SignedIn.as(grants, CONFIGURED_TENANT, "bob");

        int first = schedule.run(today);
        int second = schedule.run(today);

        assertThat(first).isEqualTo(2);
        assertThat(second).isZero();
        List<TurnRecorded> published = kafka.readFor(Topics.CONVERSATION_EVENTS,
                value -> value.contains(CONFIGURED_TENANT), Duration.ofSeconds(2)).stream()
                .map(value -> Json.read(value, TurnRecorded.class)).toList();
        assertThat(published).extracting(TurnRecorded::userId).containsExactlyInAnyOrder("alice", "bob");
        assertThat(published).allSatisfy(turn -> {
            assertThat(turn.eventId()).isEqualTo(BriefConversation.eventId(CONFIGURED_TENANT, turn.userId(), today));
            assertThat(turn.conversationId()).isEqualTo("brief-" + today);
            assertThat(turn.rounds()).isEmpty();
            assertThat(turn.proposals()).isEmpty();
        });
        assertThat(published).filteredOn(turn -> turn.userId().equals("alice")).singleElement()
                .extracting(TurnRecorded::reply).asString().contains("- coffee: 12.50 EUR (1 transactions)")
                .contains("Nothing waits for your decision.").doesNotContain("Bob's rename");
        assertThat(published).filteredOn(turn -> turn.userId().equals("bob")).singleElement()
                .extracting(TurnRecorded::reply).asString().contains("- Bob's rename (medium tier");
        assertThat(ledgerRows(CONFIGURED_TENANT, "brief-" + today)).isEqualTo(Map.of("alice", 1, "bob", 1));
        given().header("Authorization", "Bearer " + fixtures.bearer)
                .get("/api/conversations/{id}", "brief-" + today).then().statusCode(200)
                .body("turns.size()", equalTo(1)).body("turns[0].userText", equalTo(BriefConversation.USER_TEXT));
    }

    @Test
    void theBriefNeedsAnAuthenticatedCaller() {
        given().get("/api/brief").then().statusCode(401).contentType("application/problem+json")
                .body("code", equalTo("unauthenticated"));
    }
}
