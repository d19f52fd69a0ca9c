package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.executor.db.TenantSessions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.training.TrainingPlanRepository;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;

/** The plan's compare-and-swaps on Panache: two sessions race for one transition and exactly one wins. */
@QuarkusTest
@ExecutorTestResources
class TrainingPlanRepositoryTest {

    private final TenantSessions sessions;
    private final TrainingPlanRepository plans;
    private TestTenant tenant;

    TrainingPlanRepositoryTest(TenantSessions sessions, TrainingPlanRepository plans) {
        this.sessions = sessions;
        this.plans = plans;
    }

    @BeforeEach
    void freshTenant() throws Exception {
        tenant = TestTenant.withCheckingWallet();
    }

    /** Runs {@code transition} in two sessions of alice at once (both open before either moves); their answers. */
    private List<Boolean> race(Supplier<Uni<Boolean>> transition) throws Exception {
        var opened = new CompletableFuture<Void>();
        var bothOpen = new java.util.concurrent.CountDownLatch(2);
        Supplier<Uni<Boolean>> racer = () -> sessions.run(new Actor(tenant.id(), "alice", "http"), () -> {
            bothOpen.countDown();
            if (bothOpen.getCount() == 0) {
                opened.complete(null);
            }
            return Sessions.after(opened).flatMap(ignored -> transition.get());
        });
        CompletableFuture<Boolean> first = Sessions.start(racer);
        CompletableFuture<Boolean> second = Sessions.start(racer);
        return List.of(first.get(30, TimeUnit.SECONDS), second.get(30, TimeUnit.SECONDS));
    }

    @Test
    void twoActivationsOfOneDraftOnlyOneWins() throws Exception {
        UUID draft = tenant.plan("alice", "draft");

        assertThat(race(() -> plans.activateDraft(draft, tenant.id(), "alice"))).containsExactlyInAnyOrder(true,
                false);
        assertThat(Db.text("SELECT status || ' by ' || activated_by FROM training_plans WHERE id = ?", draft))
                .isEqualTo("active by alice");
    }

    @Test
    void twoArchivingsOfOneActivePlanOnlyOneWins() throws Exception {
        UUID active = tenant.plan("alice", "active");

        assertThat(race(() -> plans.archiveActive(active, tenant.id()))).containsExactlyInAnyOrder(true, false);
        assertThat(Db.text("SELECT status FROM training_plans WHERE id = ?", active)).isEqualTo("archived");
    }

    @Test
    void aTransitionFromAnotherStatusChangesNothing() throws Exception {
        UUID archived = tenant.plan("alice", "archived");

        assertThat(Sessions.await(() -> sessions.run(new Actor(tenant.id(), "alice", "http"),
                () -> plans.activateDraft(archived, tenant.id(), "alice")))).isFalse();
        assertThat(Db.text("SELECT status FROM training_plans WHERE id = ?", archived)).isEqualTo("archived");
    }
}
