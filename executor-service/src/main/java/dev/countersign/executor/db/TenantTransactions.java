package dev.countersign.executor.db;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.reactive.datasource.ReactiveDataSource;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The only way the executor opens a transaction on tenant data. Its first statement names, for the rest of the
 * transaction, the tenant (row-level security then shows and accepts only that tenant's rows, see migration V7) and who
 * is acting through which channel (the history trigger records both with every move an action makes).
 * <p>
 * Limits: one extra statement per transaction, sent with the work's first (no round trip of its own once the connection
 * has it prepared; the first time on a connection, preparing it holds the work's statements back one round trip).
 * Settings are transaction-local ({@code set_config(..., true)}), so they never leak to the next user of a pooled
 * connection. Row-level security guards against a query that forgets its tenant or takes a wrong id; the tenant named
 * here comes from the caller's token or the event, and code that names another tenant on purpose would see it.
 * <p>
 * Two pools: transactions of people acting over HTTP ({@link #HTTP}: confirm, cancel, batch confirm, undo,
 * reissue-token, resolving an action that needs review) run on the {@code http} datasource's pool
 * ({@code EXECUTOR_HTTP_DB_POOL_SIZE}); everything else (decisions by event, staging, auto-apply, reads) on the main
 * pool ({@code EXECUTOR_DB_POOL_SIZE}), which the relay, the sweeps and Panache also use. So a burst of HTTP confirms
 * holds at most its own pool's connections and its requests queue for those, not in front of an integration's decision
 * (people's reads and Panache edits, below, still can) (docs/benchmarks.md, "Decisions by event"). Limits: the two
 * pools together count against PostgreSQL's {@code max_connections}; HTTP reads ({@link #read}) and people's edits made
 * through Panache ({@code TenantSessions}: policies, imports, training plans) use the main pool; a share is a cap, not
 * a priority: when one side is idle the other cannot borrow its connections.
 */
@ApplicationScoped
public class TenantTransactions {

    public static final String AGENT = "agent";
    public static final String HTTP = "http";
    /** The datasource whose pool people's transactions over HTTP run on (application.properties). */
    public static final String HTTP_DATASOURCE = "http";
    /** The executor's tier rules applying an action on arrival. */
    public static final String AUTO_APPLY = "auto-apply";

    /** The opening statement ($1 tenant, $2 actor, $3 channel, $4 reason); public for the confirm benchmark. */
    public static final String SETTINGS = TenantSettings.select(n -> "$" + n);
    private static final String READ_ONLY_SETTINGS = TenantSettings.selectReadOnly(n -> "$" + n);
    private static final String ACT_AS = TenantSettings.actAs(n -> "$" + n);
    private static final String BECAUSE = TenantSettings.because(n -> "$" + n);

    private final Pool pool;
    private final Pool httpPool;
    /** Tasks waiting for the commit of each open transaction, by connection identity. */
    private final Map<SqlClient, List<Runnable>> afterCommit = Collections.synchronizedMap(new IdentityHashMap<>());

    public TenantTransactions(Pool pool, @ReactiveDataSource(HTTP_DATASOURCE) Pool httpPool) {
        this.pool = pool;
        this.httpPool = httpPool;
    }

    /** Runs {@code work} in one transaction of {@code actor.tenantId()}; commits if it succeeds. */
    public <T> Uni<T> run(Actor actor, Function<SqlConnection, Uni<T>> work) {
        return open(SETTINGS, actor, work);
    }

    private <T> Uni<T> open(String settings, Actor actor, Function<SqlConnection, Uni<T>> work) {
        // Deferred: a caller's retry resubscribes and gets a fresh task list, not the failed attempt's.
        return Uni.createFrom().deferred(() -> {
            List<Runnable> committed = new ArrayList<>();
            SqlConnection[] opened = new SqlConnection[1];
            // The pool's withTransaction, not a hand-made BEGIN sent ahead of the work: it owns the connection whatever
            // the caller does (a cancelled request cannot leak it or leave the work running outside the transaction),
            // and the work starts only inside a transaction that began.
            Pool share = HTTP.equals(actor.channel()) ? httpPool : pool;
            return share.withTransaction(sql -> {
                opened[0] = sql;
                afterCommit.put(sql, committed);
                return begin(sql, settings, actor, work);
            }).onTermination().invoke((item, failure, cancelled) -> {
                if (opened[0] != null) {
                    afterCommit.remove(opened[0]);
                }
                if (failure == null && !cancelled) {
                    synchronized (committed) {
                        committed.forEach(Runnable::run);
                    }
                }
            });
        });
    }

    /**
     * Runs {@code task} once the transaction of {@code sql} has committed, and never if it rolls back: for counts that
     * must not include rolled-back work. Outside {@link #run} (no known transaction) it runs at once.
     * <p>
     * Limits: work undone by {@code ROLLBACK TO SAVEPOINT} inside a transaction that then commits still runs its tasks.
     */
    public void afterCommit(SqlClient sql, Runnable task) {
        List<Runnable> tasks = afterCommit.get(sql);
        if (tasks == null) {
            task.run();
            return;
        }
        synchronized (tasks) {
            tasks.add(task);
        }
    }

    /**
     * The settings statement, and the work without waiting for its answer: the connection runs its commands in the
     * order they were sent, so the work's first statement follows the settings in the same round trip (pipelining) and
     * runs under them. If the settings fail, the transaction fails with them and rolls back; a statement of the work
     * sent meanwhile meets either the aborted transaction or current_tenant()'s refusal, never another tenant's rows.
     */
    private <T> Uni<T> begin(SqlConnection sql, String settings, Actor actor, Function<SqlConnection, Uni<T>> work) {
        return Pipelining.sendWithoutWaiting(sql.preparedQuery(settings).execute(Tuple.from(TenantSettings.values(
                actor))), () -> work.apply(sql));
    }

    /** Reads of one tenant, in one read-only transaction (a write in it is refused, SQLSTATE 25006). */
    public <T> Uni<T> read(String tenantId, Function<SqlConnection, Uni<T>> work) {
        return open(READ_ONLY_SETTINGS, new Actor(tenantId, "", "", null), work);
    }

    /** Changes who acts, through which channel and why, for the next moves in this transaction. */
    public Uni<Void> actAs(SqlClient sql, String userId, String channel, String reason) {
        return sql.preparedQuery(ACT_AS)
                .execute(Tuple.of(userId, channel, reason))
                .replaceWithVoid();
    }

    /** Changes only the reason, for the next move in this transaction. */
    public Uni<Void> because(SqlClient sql, String reason) {
        return sql.preparedQuery(BECAUSE)
                .execute(Tuple.of(reason))
                .replaceWithVoid();
    }

    /**
     * Who acts, for which tenant, through which channel, and optionally why.
     *
     * @param reason
     *            null unless the moves need one (the history trigger supplies the usual reasons itself)
     */
    public record Actor(String tenantId, String userId, String channel, String reason) {

        public Actor(String tenantId, String userId, String channel) {
            this(tenantId, userId, channel, null);
        }
    }
}
