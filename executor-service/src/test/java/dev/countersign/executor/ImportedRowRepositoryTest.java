package dev.countersign.executor;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.executor.access.Channel;
import dev.countersign.executor.access.Principal;
import dev.countersign.executor.db.TenantSessions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.imports.ImportService;
import dev.countersign.executor.imports.ImportedRowRepository;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;

/**
 * An imported row's compare-and-swaps on Panache: two sessions race for one row (both open before either moves) and
 * exactly one wins, whether both confirm or one confirms and the other rejects; the row ends as the winner left it.
 */
@QuarkusTest
@ExecutorTestResources
class ImportedRowRepositoryTest {

    private final TenantSessions sessions;
    private final ImportedRowRepository rows;
    private final ImportService imports;
    private TestTenant tenant;
    private UUID row;

    ImportedRowRepositoryTest(TenantSessions sessions, ImportedRowRepository rows, ImportService imports) {
        this.sessions = sessions;
        this.rows = rows;
        this.imports = imports;
    }

    @BeforeEach
    void oneRowWaiting() throws Exception {
        tenant = TestTenant.withCheckingWallet();
        row = UUID.fromString(given().header("Authorization", "Bearer " + tenant.executorBearer("alice"))
                .contentType("text/csv").queryParam("wallet", tenant.wallet()).body("2026-11-02,3.20,coffee\n")
                .post("/api/actions/imports").then().statusCode(200).extract().jsonPath()
                .getList("transactionIds", String.class).get(0));
    }

    /** Runs the two moves in two sessions at once (both open before either moves); their answers, in order. */
    private List<Boolean> race(Supplier<Uni<Boolean>> first, Supplier<Uni<Boolean>> second) throws Exception {
        var opened = new CompletableFuture<Void>();
        var bothOpen = new CountDownLatch(2);
        CompletableFuture<Boolean> one = Sessions.start(() -> racer(first, "bob", opened, bothOpen));
        CompletableFuture<Boolean> two = Sessions.start(() -> racer(second, "carol", opened, bothOpen));
        return List.of(one.get(30, TimeUnit.SECONDS), two.get(30, TimeUnit.SECONDS));
    }

    private Uni<Boolean> racer(Supplier<Uni<Boolean>> move, String user, CompletableFuture<Void> opened,
            CountDownLatch bothOpen) {
        return sessions.run(new Actor(tenant.id(), user, "http"), () -> {
            bothOpen.countDown();
            if (bothOpen.getCount() == 0) {
                opened.complete(null);
            }
            return Sessions.after(opened).flatMap(ignored -> move.get());
        });
    }

    @Test
    void twoConfirmationsOfOneRowOnlyOneWins() throws Exception {
        List<Boolean> answers = race(() -> rows.confirmUnconfirmed(tenant.id(), row, "bob"),
                () -> rows.confirmUnconfirmed(tenant.id(), row, "carol"));

        assertThat(answers).containsExactlyInAnyOrder(true, false);
        assertThat(Db.text("SELECT import_confirmed_by FROM transactions WHERE id = ? AND NOT unconfirmed", row))
                .isEqualTo(answers.get(0) ? "bob" : "carol");
        assertThat(Db.count("SELECT count(*) FROM import_history WHERE transaction_id = ? AND event = 'confirmed'",
                row)).isEqualTo(1);
    }

    @Test
    void aConfirmationAndARejectionOfOneRowOnlyOneWins() throws Exception {
        List<Boolean> answers = race(() -> rows.confirmUnconfirmed(tenant.id(), row, "bob"),
                () -> rows.rejectUnconfirmed(tenant.id(), row, "carol"));

        assertThat(answers).containsExactlyInAnyOrder(true, false);
        assertThat(Db.text("SELECT CASE WHEN NOT unconfirmed AND deleted_at IS NULL THEN 'confirmed by '"
                + " || import_confirmed_by WHEN unconfirmed AND deleted_at IS NOT NULL THEN 'rejected by '"
                + " || import_rejected_by END FROM transactions WHERE id = ?", row))
                .isEqualTo(answers.get(0) ? "confirmed by bob" : "rejected by carol");
    }

    @Test
    void aMoveOfARowNoLongerWaitingChangesNothing() throws Exception {
        assertThat(Sessions.await(() -> sessions.run(new Actor(tenant.id(), "bob", "http"),
                () -> rows.rejectUnconfirmed(tenant.id(), row, "bob")))).isTrue();

        assertThat(Sessions.await(() -> sessions.run(new Actor(tenant.id(), "carol", "http"),
                () -> rows.confirmUnconfirmed(tenant.id(), row, "carol")))).isFalse();
        assertThat(Sessions.await(() -> sessions.run(new Actor(tenant.id(), "carol", "http"),
                () -> rows.rejectUnconfirmed(tenant.id(), row, "carol")))).isFalse();
        assertThat(Db.text("SELECT import_rejected_by || ' ' || unconfirmed FROM transactions WHERE id = ?", row))
                .isEqualTo("bob true");
    }

    @Test
    void twoConfirmRequestsForOneRowConfirmItOnce() throws Exception {
        CompletableFuture<Integer> bob = Sessions
                .start(() -> imports.confirm(new Actor(tenant.id(), "bob", "http"), List.of(row),
                        Principal.person("bob", true, false), Channel.HTTP));
        CompletableFuture<Integer> carol = Sessions
                .start(() -> imports.confirm(new Actor(tenant.id(), "carol", "http"), List.of(row),
                        Principal.person("carol", true, false), Channel.HTTP));

        assertThat(bob.get(30, TimeUnit.SECONDS) + carol.get(30, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(Db.count("SELECT count(*) FROM import_history WHERE transaction_id = ? AND event = 'confirmed'",
                row)).isEqualTo(1);
    }
}
