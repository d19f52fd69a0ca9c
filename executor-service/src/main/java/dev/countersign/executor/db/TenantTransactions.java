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
 * Limits: one extra statement per transaction, sent with BEGIN and the work's first (no round trip of its own once the
 * connection has it prepared; the first time on a connection, preparing it holds the work's statements back one round
 * trip). BEGIN and COMMIT are sent by hand on a pooled connection (not the pool's {@code withTransaction}, which waits
 * for BEGIN's answer and sends COMMIT only after every statement answered): two round trips less per transaction, and
 * {@link #commitWith} lets a work send its last statements with the COMMIT. Settings are transaction-local
 * ({@code set_config(..., true)}), so they never leak to the next user of a pooled connection. Row-level security
 * guards against a query that forgets its tenant or takes a wrong id; the tenant named here comes from the caller's
 * token or the event, and code that names another tenant on purpose would see it.
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

    /**
     * The end of a transaction that commits. Its first statement fails (25P02) in a transaction PostgreSQL aborted, and
     * the COMMIT after it in the same message is then not run: a plain COMMIT there would roll back and answer as if it
     * had committed, so a work that swallowed a statement's failure would be reported as committed. The transaction
     * stays open, aborted, until the ROLLBACK every failure sends.
     */
    private static final String COMMIT = "SELECT 'the transaction was not aborted'; COMMIT";

    private final Pool pool;
    private final Pool httpPool;
    /** Each open transaction, by the identity of its connection. */
    private final Map<SqlClient, OpenTransaction> open = Collections.synchronizedMap(new IdentityHashMap<>());

    public TenantTransactions(Pool pool, @ReactiveDataSource(HTTP_DATASOURCE) Pool httpPool) {
        this.pool = pool;
        this.httpPool = httpPool;
    }

    /** Runs {@code work} in one transaction of {@code actor.tenantId()}; commits if it succeeds. */
    public <T> Uni<T> run(Actor actor, Function<SqlConnection, Uni<T>> work) {
        return open(SETTINGS, actor, work);
    }

    private <T> Uni<T> open(String settings, Actor actor, Function<SqlConnection, Uni<T>> work) {
        // The pool's withConnection owns the connection whatever the caller does: the work runs to its end on a
        // subscription of the pool's, and the connection goes back only after it (a cancelled request cannot leak it
        // or leave the work running outside the transaction). The transaction's record lives and ends with the work,
        // inside it, not with the caller's subscription; each subscription (a caller's retry) gets its own.
        Pool share = HTTP.equals(actor.channel()) ? httpPool : pool;
        return share.withConnection(sql -> {
            OpenTransaction transaction = new OpenTransaction();
            open.put(sql, transaction);
            return inTransaction(sql, transaction, settings, actor, work).onTermination().invoke(() -> {
                open.remove(sql);
                if (transaction.committed) {
                    synchronized (transaction.afterCommit) {
                        transaction.afterCommit.forEach(Runnable::run);
                    }
                }
            });
        });
    }

    /**
     * BEGIN, the settings and the work sent together ({@link #begin}); then COMMIT ({@link #COMMIT}), unless the work
     * sent it with its last statements ({@link #commitWith}); on any failure ROLLBACK before the connection goes back
     * to the pool (after a COMMIT that failed, PostgreSQL has already ended the transaction and the ROLLBACK only
     * warns). A failed ROLLBACK means a broken connection, which the pool discards; the work's failure is what the
     * caller sees.
     */
    private <T> Uni<T> inTransaction(SqlConnection sql, OpenTransaction transaction, String settings, Actor actor,
            Function<SqlConnection, Uni<T>> work) {
        return Pipelining.sendWithoutWaiting(sql.query("BEGIN").execute(), () -> begin(sql, settings, actor, work))
                .call(() -> ended(sql, transaction))
                .onFailure().call(() -> sql.query("ROLLBACK").execute().onFailure().recoverWithNull());
    }

    /**
     * The end of a work that succeeded: COMMIT; or, if it sent the COMMIT with its last step ({@link #commitWith}),
     * nothing more when that committed, and a failure (so the ROLLBACK) when it did not: a work that recovered from its
     * {@code commitWith}'s failure must not send its connection back to the pool inside the transaction.
     */
    private static Uni<?> ended(SqlConnection sql, OpenTransaction transaction) {
        if (!transaction.commitSent) {
            return commit(sql, transaction);
        }
        return transaction.committed
                ? Uni.createFrom().voidItem()
                : Uni.createFrom().failure(new IllegalStateException(
                        "The work ended without the COMMIT it sent with its last step; rolled back"));
    }

    /** {@link #COMMIT}, the transaction marked committed once it answered. */
    private static Uni<?> commit(SqlClient sql, OpenTransaction transaction) {
        return sql.query(COMMIT).execute().invoke(() -> transaction.committed = true);
    }

    /**
     * Runs {@code task} once the transaction of {@code sql} has committed, and never if it rolls back: for counts that
     * must not include rolled-back work. Outside {@link #run} (no known transaction) it runs at once.
     * <p>
     * Limits: work undone by {@code ROLLBACK TO SAVEPOINT} inside a transaction that then commits still runs its tasks.
     */
    public void afterCommit(SqlClient sql, Runnable task) {
        OpenTransaction transaction = open.get(sql);
        if (transaction == null) {
            task.run();
            return;
        }
        synchronized (transaction.afterCommit) {
            transaction.afterCommit.add(task);
        }
    }

    /**
     * The work's last step, {@code last}, and the transaction's COMMIT sent without waiting for its answer: the commit
     * costs no round trip of its own. If a statement of {@code last} fails, PostgreSQL has aborted the transaction and
     * {@link #COMMIT} fails too: nothing commits, and the caller sees the failure. So whatever decides whether the
     * transaction may commit must be decided in the database by {@code last}'s statements (they fail to refuse); the
     * Java code that reads their answers runs after the COMMIT was sent and must not decide anything (it could only
     * fail the call of a transaction that has committed, as a lost connection can; the tasks waiting for the commit run
     * all the same).
     * <p>
     * {@code last} is built before this call (whatever Java work its statements need is done), and sends every one of
     * its statements when subscribed, without waiting for an answer: a statement it sent only after an answer would run
     * after the COMMIT, outside the transaction, and Java code failing between two of its statements would let the
     * COMMIT commit the first alone. A {@code last} that fails as it is subscribed (before sending anything) sends no
     * COMMIT and the transaction rolls back. Only once per transaction, as its last statements, inside {@link #run}.
     */
    public <T> Uni<T> commitWith(SqlClient sql, Uni<T> last) {
        OpenTransaction transaction = open.get(sql);
        if (transaction == null) {
            throw new IllegalStateException("commitWith ends a transaction opened by run()");
        }
        return Uni.createFrom().deferred(() -> {
            if (transaction.commitSent) {
                throw new IllegalStateException("commitWith ends a transaction once");
            }
            transaction.commitSent = true;
            boolean[] failedAsSubscribed = new boolean[1];
            return Pipelining.sendTogether(last.onFailure().invoke(() -> failedAsSubscribed[0] = true),
                    () -> failedAsSubscribed[0]
                            ? Uni.createFrom()
                                    .failure(new IllegalStateException("No COMMIT sent: the last step failed"))
                            : commit(sql, transaction),
                    (result, ignored) -> result);
        });
    }

    /** What is known of an open transaction: its tasks for after the commit, whether COMMIT was sent and answered. */
    private static final class OpenTransaction {

        final List<Runnable> afterCommit = new ArrayList<>();
        volatile boolean commitSent;
        volatile boolean committed;
    }

    /**
     * The settings statement, and the work without waiting for its answer: the connection runs its commands in the
     * order they were sent, so BEGIN, the settings and the work's first statement go out in one round trip (pipelining)
     * and the work runs under the settings. If the settings fail, the transaction fails with them and rolls back; a
     * statement of the work sent meanwhile meets either the aborted transaction or current_tenant()'s refusal, never
     * another tenant's rows. Should BEGIN itself fail (on a healthy connection it does not: one already in a
     * transaction only warns; a broken one fails everything after it too), the settings would end with their own
     * implicit transaction and the work's first statement would run alone, without a tenant: every tenant table's
     * policy refuses it (CS401), and so do {@code first_delivery} and {@code first_deliveries}, the owner functions a
     * work starts with. Limit: a work that began with another owner function would not be refused that way; none does.
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
