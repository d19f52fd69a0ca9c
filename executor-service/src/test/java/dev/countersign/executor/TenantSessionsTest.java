package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.query.spi.QueryInterpretationCache;
import org.hibernate.reactive.mutiny.Mutiny;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.executor.db.TenantSessions;
import dev.countersign.executor.db.TenantSessions.NestedTenantSessionException;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.policy.PolicySettingsRepository;
import dev.countersign.executor.training.TrainingPlan;
import dev.countersign.executor.training.TrainingPlanRepository;
import io.quarkus.arc.ClientProxy;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;

/**
 * The Panache path's tenant fence: a tenant session's first statement names the tenant, and row-level security (not a
 * WHERE clause) is what hides other tenants' rows; the queries here name no tenant on purpose.
 */
@QuarkusTest
@ExecutorTestResources
class TenantSessionsTest {

    private final TenantSessions sessions;
    private final TrainingPlanRepository plans;
    private final PolicySettingsRepository policies;
    private final TenantTransactions transactions;
    private final Mutiny.SessionFactory sessionFactory;
    private TestTenant a;
    private TestTenant b;

    TenantSessionsTest(TenantSessions sessions, TrainingPlanRepository plans, PolicySettingsRepository policies,
            TenantTransactions transactions, Mutiny.SessionFactory sessionFactory) {
        this.sessions = sessions;
        this.sessionFactory = sessionFactory;
        this.transactions = transactions;
        this.plans = plans;
        this.policies = policies;
    }

    @BeforeEach
    void twoTenantsWithPlans() throws Exception {
        a = TestTenant.withCheckingWallet();
        b = TestTenant.withCheckingWallet();
    }

    private static List<String> tenantsOf(List<TrainingPlan> found) {
        return found.stream().map(plan -> plan.tenantId).distinct().toList();
    }

    @Test
    void rowLevelSecurityHidesAnotherTenantsRowsFromAQueryThatNamesNoTenant() throws Exception {
        UUID mine = a.plan("alice", "draft");
        UUID theirs = b.plan("alice", "draft");

        List<TrainingPlan> all = Sessions.await(() -> sessions.read(a.id(), () -> plans.listAll()));

        assertThat(tenantsOf(all)).containsExactly(a.id());
        assertThat(all).extracting(plan -> plan.id).contains(mine).doesNotContain(theirs);
        assertThat(Sessions.await(() -> sessions.read(a.id(), () -> plans.findById(theirs)))).isNull();
        assertThat(Sessions.await(() -> sessions.run(new Actor(a.id(), "alice", "http"),
                () -> plans.activateDraft(theirs, b.id(), "alice"))))
                .as("a compare-and-swap on another tenant's row finds nothing").isFalse();
        assertThat(Db.text("SELECT status FROM training_plans WHERE id = ?", theirs)).isEqualTo("draft");
    }

    @Test
    void twoTenantsSessionsOpenAtOnceEachSeeOnlyTheirOwnRows() throws Exception {
        a.plan("alice", "draft");
        b.plan("bob", "draft");
        var aNamed = new CompletableFuture<Void>();
        var bNamed = new CompletableFuture<Void>();

        // Each names its tenant, then waits until the other has named its own before reading: both open together.
        CompletableFuture<List<TrainingPlan>> seenByA = Sessions.start(() -> sessions.read(a.id(), () -> {
            aNamed.complete(null);
            return Sessions.after(bNamed).flatMap(ignored -> plans.listAll());
        }));
        CompletableFuture<List<TrainingPlan>> seenByB = Sessions.start(() -> sessions.read(b.id(), () -> {
            bNamed.complete(null);
            return Sessions.after(aNamed).flatMap(ignored -> plans.listAll());
        }));

        assertThat(tenantsOf(seenByA.get(30, TimeUnit.SECONDS))).containsExactly(a.id());
        assertThat(tenantsOf(seenByB.get(30, TimeUnit.SECONDS))).containsExactly(b.id());
        // The settings were transaction-local: a pooled connection reused by a tenant without rows shows nothing.
        String empty = "t-" + UUID.randomUUID();
        for (int i = 0; i < 5; i++) {
            assertThat(Sessions.await(() -> sessions.read(empty, () -> plans.listAll()))).isEmpty();
        }
    }

    @Test
    void aTenantSessionInsideAnotherTenantsIsRefusedAndTheOuterOneChangesNothing() throws Exception {
        UUID draft = a.plan("alice", "draft");

        assertThatThrownBy(() -> Sessions.await(() -> sessions.run(new Actor(a.id(), "alice", "http"),
                () -> plans.activateDraft(draft, a.id(), "alice")
                        .flatMap(won -> sessions.read(b.id(), () -> plans.listAll())))))
                .isInstanceOf(NestedTenantSessionException.class);

        assertThat(Db.text("SELECT status FROM training_plans WHERE id = ?", draft)).isEqualTo("draft");
        // The context is free again: on the same Vert.x context (one await; each await gets a fresh context, where a
        // leaked marker would never be seen), a session after the refused one opens normally.
        TrainingPlan afterTheRefusal = Sessions.await(() -> {
            Uni<List<TrainingPlan>> nested = sessions.run(new Actor(a.id(), "alice", "http"),
                    () -> sessions.read(b.id(), () -> plans.listAll()));
            return nested.onFailure(NestedTenantSessionException.class).recoverWithNull()
                    .flatMap(refused -> sessions.read(a.id(), () -> plans.findById(draft)));
        });
        assertThat(afterTheRefusal).isNotNull();
    }

    /**
     * A repository called outside a tenant session (as in an endpoint, where Quarkus opens a Panache session on demand)
     * names no tenant. Row-level security alone would hide the tenant's policy row, and the repository would answer the
     * defaults for a tenant that switched agent writes off; the database refuses the read instead
     * (R__current_tenant.sql).
     */
    @Test
    void aWriteInAReadSessionIsRefusedAndChangesNothing() throws Exception {
        UUID draft = a.plan("alice", "draft");

        assertThatThrownBy(() -> Sessions.await(() -> sessions.read(a.id(),
                () -> plans.activateDraft(draft, a.id(), "alice"))))
                .hasStackTraceContaining("read-only transaction");
        assertThatThrownBy(() -> transactions.read(a.id(),
                sql -> sql.query("UPDATE training_plans SET status = 'active' WHERE id = '" + draft + "'").execute())
                .await().atMost(Duration.ofSeconds(10)))
                .hasStackTraceContaining("read-only transaction");
        assertThat(Db.text("SELECT status FROM training_plans WHERE id = ?", draft)).isEqualTo("draft");
        assertThat(Sessions.await(() -> sessions.run(new Actor(a.id(), "alice", "http"),
                () -> plans.activateDraft(draft, a.id(), "alice")))).as("the same move in a session that may write")
                .isTrue();
    }

    @Test
    void aRepositoryReadOutsideATenantSessionIsRefusedNotAnsweredWithDefaults() throws Exception {
        try (var owner = Db.owner();
                var insert = owner.prepareStatement(
                        "INSERT INTO tenant_policies (tenant_id, agent_writes, updated_by) VALUES (?, 'disabled', 'admin')")) {
            insert.setString(1, a.id());
            insert.executeUpdate();
        }
        assertThat(Sessions.await(() -> sessions.read(a.id(), () -> policies.agentWrites(a.id()))).mode())
                .as("in its tenant session").isEqualTo(AgentWritesPolicy.Mode.DISABLED);

        assertThatThrownBy(() -> Sessions.await(() -> Panache.withSession(() -> policies.agentWrites(a.id()))))
                .hasStackTraceContaining("no tenant named");
        a.plan("alice", "draft");
        assertThatThrownBy(() -> Sessions.await(() -> Panache.withTransaction(() -> plans.listAll())))
                .hasStackTraceContaining("no tenant named");
    }

    /**
     * Opening a tenant session reuses one cached statement plan: the opening statement once went through Hibernate's
     * native-query path, which added a plan-cache entry per session that no later lookup matched, all under one hash,
     * so every session searched them one by one (up to the cache's 2,048).
     */
    @Test
    void openingTenantSessionsAddsNoQueryPlanPerSession() throws Exception {
        Sessions.await(() -> sessions.read(a.id(), () -> Uni.createFrom().voidItem()));
        Sessions.await(() -> sessions.run(new Actor(a.id(), "alice", "http"), () -> Uni.createFrom().voidItem()));
        QueryInterpretationCache cache = interpretationCache();
        int plans = cache.getNumberOfCachedQueryPlans();
        // The cache holds at most 2,048 plans (Quarkus' default); a full one would hide a leak behind its evictions.
        assertThat(plans).as("cached query plans before (room left for a leak to show)").isLessThan(2048 - 40);

        for (int i = 0; i < 20; i++) {
            Sessions.await(() -> sessions.read(a.id(), () -> Uni.createFrom().voidItem()));
            Sessions.await(() -> sessions.run(new Actor(a.id(), "alice", "http"), () -> Uni.createFrom().voidItem()));
        }

        assertThat(cache.getNumberOfCachedQueryPlans()).as("cached query plans after 40 more sessions")
                .isEqualTo(plans);
    }

    /** The ORM's plan cache, behind Hibernate Reactive's session factory (which does not expose it). */
    private QueryInterpretationCache interpretationCache() throws IllegalAccessException {
        Object factory = ClientProxy.unwrap(sessionFactory);
        for (Class<?> type = factory.getClass(); type != null; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (SessionFactoryImplementor.class.isAssignableFrom(field.getType())) {
                    field.setAccessible(true);
                    return ((SessionFactoryImplementor) field.get(factory)).getQueryEngine()
                            .getInterpretationCache();
                }
            }
        }
        throw new IllegalStateException("no SessionFactoryImplementor in " + factory.getClass());
    }
}
