package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.events.ActionExecuted;
import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.testing.ConfirmBaselineFile;
import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issues 21 and 41: the confirm benchmark's baseline is the executor's own SQL as it was when issue 41 started
 * ({@code deploy/bench/confirm-baseline.sql}, frozen then so that a heavier or lighter confirm in the service cannot
 * move the bar); it must not change, and its one-round-trip function must still do a confirm's work on a real staged
 * proposal against today's schema.
 */
@QuarkusTest
@ExecutorTestResources
class ConfirmBaselineSqlTest {

    private static final Path FILE = Path.of("..", "deploy", "bench", "confirm-baseline.sql");

    private final TopicRecords kafka = TopicRecords.fromTestProperties();

    /** The file's SHA-256 as frozen (its header comment rewritten to say so, its SQL as at commit 60e2add). */
    private static final String FROZEN = "b67edcf3c009a0ef7c46786dc8d87097eb8cb8cae5fbb384f1f165a8f6a26ccf";

    @Test
    void theBenchmarksBaselineIsTheConfirmAsItWasWhenIssue41Started() throws Exception {
        byte[] file = Files.readAllBytes(FILE);

        assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(file)))
                .as("%s is frozen: the bar the confirm is measured against does not move", FILE).isEqualTo(FROZEN);
    }

    @Test
    void theOneRoundTripFunctionConfirmsAndExecutesAStagedProposal() throws Exception {
        TestTenant tenant = TestTenant.withCheckingWallet();
        ProposalMother proposal = ProposalMother.staged(kafka, tenant, "12.50");
        UUID transaction = UUID.randomUUID();
        UUID event = UUID.randomUUID();
        try (var owner = Db.owner()) {
            owner.createStatement()
                    .execute(ConfirmBaselineFile.parse(Files.readString(FILE, StandardCharsets.UTF_8)).function());
            owner.createStatement().execute("GRANT EXECUTE ON FUNCTION bench_confirm(text, text, uuid, uuid, uuid) TO "
                    + LocalPostgres.EXECUTOR_ROLE);
        }
        try (var app = Db.application()) {
            app.setAutoCommit(false);
            try (var call = app.prepareStatement("SELECT bench_confirm(?, ?, ?, ?, ?)")) {
                call.setString(1, tenant.id());
                call.setString(2, "alice");
                call.setObject(3, proposal.actionId);
                call.setObject(4, transaction);
                call.setObject(5, event);
                try (var result = call.executeQuery()) {
                    assertThat(result.next()).isTrue();
                    assertThat(result.getBoolean(1)).as("bench_confirm's answer").isTrue();
                }
            }
            app.commit();
        } finally {
            try (var owner = Db.owner()) {
                // DatabaseRulesMigrationTest compares every function with the migrations: leave none behind.
                owner.createStatement().execute("DROP FUNCTION bench_confirm(text, text, uuid, uuid, uuid)");
            }
        }

        assertThat(Db.status(proposal.actionId)).isEqualTo("executed");
        assertThat(
                Db.count("SELECT count(*) FROM transactions WHERE id = ? AND source_action_id = ? AND amount = 12.50",
                        transaction, proposal.actionId))
                .isEqualTo(1);
        assertThat(Db.count("SELECT count(*) FROM action_history WHERE action_id = ? AND to_status = 'executed'"
                + " AND actor = 'alice' AND channel = 'http'", proposal.actionId)).isEqualTo(1);
        try (var owner = Db.owner();
                var payload = owner.prepareStatement("SELECT payload FROM outbox WHERE event_id = ?")) {
            payload.setObject(1, event);
            try (var row = payload.executeQuery()) {
                assertThat(row.next()).as("the outbox row").isTrue();
                ActionExecuted executed = Json.mapper().readValue(row.getString(1), ActionExecuted.class);
                assertThat(executed.actionId()).isEqualTo(proposal.actionId);
                assertThat(executed.confirmedBy()).isEqualTo("alice");
                assertThat(executed.result().path("transactionId").asText()).isEqualTo(transaction.toString());
            }
        }
    }
}
