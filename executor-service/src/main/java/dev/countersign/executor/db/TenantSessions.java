package dev.countersign.executor.db;

import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.executor.db.TenantTransactions.Actor;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.common.vertx.ContextLocals;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;

/**
 * The Panache twin of {@link TenantTransactions}: one Hibernate Reactive transaction on tenant data whose first
 * statement is the same {@link TenantSettings} statement (tenant for row-level security, actor, channel, reason, all
 * transaction-local), then {@code work}, which uses the Panache repositories. Commits if {@code work} succeeds.
 * <p>
 * Limits: Panache keeps one session per Vert.x (duplicated) context and a second {@code withTransaction} on it joins
 * the open transaction, where a second tenant's settings would silently replace the first's. So a tenant session
 * refuses to open inside another one on the same context ({@link NestedTenantSessionException}), whatever the tenant;
 * compose the work inside one session instead. It sees only sessions opened here: a bare {@code Panache.withSession}
 * elsewhere would not be noticed (no code does that). Needs a Vert.x context (REST endpoints, consumers; tests use
 * {@code VertxContextSupport}).
 */
@ApplicationScoped
public class TenantSessions {

    private static final String SETTINGS = TenantSettings.select(n -> "?" + n);
    private static final String READ_ONLY_SETTINGS = TenantSettings.selectReadOnly(n -> "?" + n);
    private static final String OPEN = TenantSessions.class.getName() + ".tenant";

    /** Runs {@code work} in one transaction of {@code actor.tenantId()}; commits if it succeeds. */
    public <T> Uni<T> run(Actor actor, Supplier<Uni<T>> work) {
        return open(SETTINGS, actor, work);
    }

    /** Reads of one tenant, in one read-only transaction (a write in it is refused, SQLSTATE 25006). */
    public <T> Uni<T> read(String tenantId, Supplier<Uni<T>> work) {
        return open(READ_ONLY_SETTINGS, new Actor(tenantId, "", "", null), work);
    }

    private <T> Uni<T> open(String statement, Actor actor, Supplier<Uni<T>> work) {
        return Uni.createFrom().deferred(() -> {
            if (Vertx.currentContext() == null) {
                return Uni.createFrom().failure(new IllegalStateException(
                        "A tenant session needs a Vert.x context (an endpoint, a consumer, VertxContextSupport)."));
            }
            var open = ContextLocals.<String>get(OPEN);
            if (open.isPresent()) {
                return Uni.createFrom().failure(new NestedTenantSessionException(open.get(), actor.tenantId()));
            }
            ContextLocals.put(OPEN, actor.tenantId());
            return Panache.withTransaction(() -> Panache.getSession()
                    .flatMap(session -> {
                        var settings = session.createNativeQuery(statement);
                        Object[] values = TenantSettings.values(actor);
                        for (int i = 0; i < values.length; i++) {
                            settings.setParameter(i + 1, values[i]);
                        }
                        // Run as a statement, not read as a query: Hibernate (7.2) caches a native query's plan under
                        // a key holding the query's own result mapping, which the run then changes, so each run of
                        // the same SELECT added an entry no lookup matches again (up to the cache's 2,048), all with
                        // one hash, searched one by one on every run. A statement's plan is cached once. Its cost:
                        // with no query space named, Hibernate counts every entity as touched by it and registers a
                        // cleanup per session that, with no second-level or query cache, has nothing to clear.
                        return settings.executeUpdate();
                    })
                    .flatMap(ignored -> work.get()))
                    .onTermination().invoke(() -> ContextLocals.remove(OPEN));
        });
    }

    /** A tenant session asked for while another is open on the same context: refused, nothing ran. */
    public static final class NestedTenantSessionException extends IllegalStateException {

        NestedTenantSessionException(String openTenant, String askedTenant) {
            super("A tenant session is already open on this context" + (openTenant.equals(askedTenant)
                    ? ""
                    : " for another tenant") + "; compose the work inside it instead of nesting.");
        }
    }
}
