package dev.countersign.agent;

import static dev.countersign.agent.AgentFixtures.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.events.PlanEvent;
import dev.countersign.contracts.events.PlanStatementDrafted;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.testing.TestProperties;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Plan mode on another instance of agent-service than {@link PlanModeTest}'s: this class runs under another test
 * profile, so Quarkus boots a new application (a restart, with nothing in memory) against the same database and broker.
 */
@QuarkusTest
@AgentTestResources
@TestProfile(TurnBudgetTest.ShortBudget.class)
class PlanOnAnotherInstanceTest {

    private AgentFixtures fixtures;

    @BeforeEach
    void freshTenant() throws Exception {
        fixtures = new AgentFixtures();
    }

    @Test
    void aFirstTurnOfAFreshConversationIsGroundedFromTheCatalogAsItIsNow() throws Exception {
        String late = "plan_probe_late_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection owner = TestProperties.ownerConnection(); Statement sql = owner.createStatement()) {
            sql.execute("CREATE TABLE " + late + " (reading numeric)");
            sql.execute("GRANT SELECT ON " + late + " TO " + LocalPostgres.READER_ROLE);
        }
        ScriptedModel.use(script(ModelReply.text(PlanModeTest.BY_CATEGORY)));

        PlanModeTest.plan(fixtures, "c-" + UUID.randomUUID(), "which categories cost most?").statusCode(200)
                .body("verdict", equalTo("statement")).body("deliverable.validation.unknownTables",
                        org.hamcrest.Matchers.hasSize(0));

        String system = ScriptedModel.requests().get(0).path("messages").get(0).path("content").asText();
        assertThat(system).contains("relation public.transactions - rows:")
                .contains("relation public." + late + " - rows: UNKNOWN");
    }

    /** Another replica published the deliverable; the executor appended it; this instance finds and runs it. */
    @Test
    void aStatementDraftedOnAnotherReplicaRunsHereFromTheLedger() throws Exception {
        fixtures.transaction(fixtures.checking, "7.00", "books", null, LocalDate.now());
        UUID turnId = UUID.randomUUID();
        PlanEvent drafted = new PlanStatementDrafted(UUID.randomUUID(), PlanEvent.SCHEMA_VERSION, Instant.now(),
                fixtures.tenant, "alice", "c-elsewhere", turnId, "postgresql",
                "SELECT category, amount FROM transactions", "",
                new PlanStatementDrafted.Guard(true, "recorded elsewhere"),
                new PlanStatementDrafted.Validation(List.of("transactions"), List.of(), List.of(), ""));
        try (Connection owner = TestProperties.ownerConnection(); PreparedStatement insert = owner.prepareStatement("""
                INSERT INTO conversation_events (event_id, tenant_id, user_id, conversation_id, turn_id, type,
                                                 occurred_at, payload)
                VALUES (?, ?, 'alice', 'c-elsewhere', ?, 'PlanStatementDrafted', now(), ?::jsonb)""")) {
            insert.setObject(1, drafted.eventId());
            insert.setString(2, fixtures.tenant);
            insert.setObject(3, turnId);
            insert.setString(4, Json.write(drafted));
            insert.executeUpdate();
        }

        PlanModeTest.run(fixtures, "c-elsewhere", turnId.toString(), "").statusCode(200)
                .body("rows[0]", equalTo(List.of("books", "7.00")));
    }
}
