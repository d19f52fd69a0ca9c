package dev.countersign.agent.ledger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.TenantIsolation;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The agent's native reads (plain SQL on the reactive pool): a transaction, under the read-only role, whose first
 * statement names the caller's tenant, so row-level security shows that tenant's rows only. The queries filter by
 * tenant as well (the indexes lead with it). The mapped reads go through {@link TenantSessions}, which names the tenant
 * the same way; docs/agent-data-access.md says which reads are which, and why some stay native.
 */
@ApplicationScoped
public class TenantReads {

    /** How long a caller waits for a read before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final Pool pool;

    public TenantReads(Pool pool) {
        this.pool = pool;
    }

    /**
     * Like {@link #inTenant}, but the transaction is rolled back, never committed, whatever {@code read} did: for SQL
     * the service did not write (a plan run), so nothing it set, even for the session, outlives it on the pooled
     * connection.
     */
    public <T> Uni<T> inTenantRolledBack(String tenantId, Function<SqlConnection, Uni<T>> read) {
        return pool.withConnection(sql -> sql.begin().flatMap(transaction -> sql
                .preparedQuery("SELECT " + TenantIsolation.setTenant("$1"))
                .execute(Tuple.of(tenantId))
                .flatMap(ignored -> read.apply(sql))
                .onItemOrFailure().call((item, failure) -> transaction.rollback()
                        .onFailure().recoverWithNull())));
    }

    public <T> Uni<T> inTenant(String tenantId, Function<SqlConnection, Uni<T>> read) {
        return pool.withTransaction(sql -> sql
                .preparedQuery("SELECT " + TenantIsolation.setTenant("$1"))
                .execute(Tuple.of(tenantId))
                .flatMap(ignored -> read.apply(sql)));
    }

    /** One query in its own tenant transaction, each row mapped, waited for at most {@link #TIMEOUT}. */
    public <T> List<T> list(String tenantId, String query, Tuple arguments, Function<Row, T> mapper) {
        return inTenant(tenantId, sql -> sql.preparedQuery(query).execute(arguments))
                .map(rows -> map(rows, mapper))
                .await().atMost(TIMEOUT);
    }

    public static <T> List<T> map(RowSet<Row> rows, Function<Row, T> mapper) {
        List<T> list = new ArrayList<>();
        rows.forEach(row -> list.add(mapper.apply(row)));
        return list;
    }
}
