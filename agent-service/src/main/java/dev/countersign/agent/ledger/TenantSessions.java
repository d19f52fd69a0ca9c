package dev.countersign.agent.ledger;

import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import org.hibernate.reactive.mutiny.Mutiny;
import org.jboss.logging.Logger;

import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.evidence.ReaderGrants;
import dev.countersign.contracts.TenantIsolation;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.vertx.core.runtime.context.VertxContextSafetyToggle;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * The one way the agent's mapped (Hibernate Reactive Panache) reads reach the database: a read-only session, under the
 * read-only role, in a transaction whose first statement names the person's reader grant, so row-level security shows
 * that grant's tenant (and person) only, as {@link TenantReads} does for the native reads. The mapped entities are
 * {@code @Immutable} and the session is read-only, so nothing is ever dirty and the commit flushes nothing; the role
 * could not write anyway.
 * <p>
 * Each read runs on a fresh duplicated Vert.x context, so callers on worker threads (the model's tools) and on the
 * event loop (REST) alike get their own session, never one another's.
 */
@ApplicationScoped
public class TenantSessions {

    private static final Logger LOG = Logger.getLogger(TenantSessions.class);

    private static final String NAME_GRANT = "SELECT " + TenantIsolation.useGrant(":grant");

    private final Vertx vertx;
    private final ReaderGrants grants;

    public TenantSessions(Vertx vertx, ReaderGrants grants) {
        this.vertx = vertx;
        this.grants = grants;
    }

    /** {@code read} in its own tenant transaction; the grant is named before {@code read} runs anything. */
    public <T> Uni<T> inTenant(Person person, Function<Mutiny.Session, Uni<T>> read) {
        return grants.secretFor(person).flatMap(secret -> onOwnContext(() -> Panache.withTransaction(() -> Panache
                .getSession().flatMap(session -> {
                    session.setDefaultReadOnly(true);
                    return session.createNativeQuery(NAME_GRANT)
                            .setParameter("grant", secret)
                            .getSingleResult()
                            .flatMap(named -> read.apply(session));
                }))));
    }

    /** Like {@link #inTenant}, waited for at most {@link TenantReads#TIMEOUT}: for callers that block (tools). */
    public <T> T await(Person person, Function<Mutiny.Session, Uni<T>> read) {
        return inTenant(person, read).await().atMost(TenantReads.TIMEOUT);
    }

    /**
     * Parses {@code hql} once, at startup, so the first read after a start does not parse it on the event loop: a cold
     * HQL parse (ANTLR) took seconds on a loaded machine and ran a turn's first read past {@link TenantReads#TIMEOUT}.
     * Opens a session (a pooled connection) and runs nothing; if the database is not there yet the query is parsed at
     * its first use instead, as before.
     */
    public void parseAtStartup(String hql, Class<?> resultType) {
        try {
            onOwnContext(() -> Panache.withSession(() -> Panache.getSession()
                    .map(session -> session.createSelectionQuery(hql, resultType))))
                    .await().atMost(TenantReads.TIMEOUT);
        } catch (RuntimeException e) {
            LOG.warnf("A mapped read's query was not parsed at startup (%s); it will be at its first use",
                    e.getClass().getSimpleName());
        }
    }

    private <T> Uni<T> onOwnContext(java.util.function.Supplier<Uni<T>> work) {
        return Uni.createFrom().emitter(emitter -> {
            Context context = VertxContext.createNewDuplicatedContext(vertx.getOrCreateContext());
            VertxContextSafetyToggle.setContextSafe(context, true);
            context.runOnContext(ignored -> work.get().subscribe().with(emitter::complete, emitter::fail));
        });
    }
}
