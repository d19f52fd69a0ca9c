package dev.countersign.agent.ledger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.evidence.ReaderGrants;
import dev.countersign.contracts.TenantIsolation;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The agent's native reads (plain SQL on the reactive pool): a transaction, under the read-only role, whose first
 * statement names the person's reader grant ({@link ReaderGrants}), so row-level security shows that grant's tenant
 * only, and of its per-person tables that person's rows; the role cannot name a tenant any other way. The queries
 * filter by tenant as well (the indexes lead with it). The mapped reads go through {@link TenantSessions}, which names
 * the tenant the same way; docs/agent-data-access.md says which reads are which, and why some stay native.
 */
@ApplicationScoped
public class TenantReads {

    /**
     * How long a caller waits for a read before it gives up. A read takes milliseconds; this bound is for a database
     * that stopped answering. It was 5 s until a turn's first read on a freshly started agent (its first reader grant,
     * minted by an equally cold executor, and its first queries) took longer on a 2-core machine under the test suite's
     * load (load average 10 to 20), and the turn failed. Every read of the agent waits this long at most, the tools'
     * too; a turn's wall clock (40 s by default) is checked between the model's rounds, so a turn with several slow
     * reads can run past it.
     */
    public static final Duration TIMEOUT = Duration.ofSeconds(15);

    private static final String NAME_GRANT = "SELECT " + TenantIsolation.useGrant("$1");

    private final Pool pool;
    private final ReaderGrants grants;

    public TenantReads(Pool pool, ReaderGrants grants) {
        this.pool = pool;
        this.grants = grants;
    }

    /**
     * Like {@link #inTenant}, but the transaction is rolled back, never committed, whatever {@code read} did: for SQL
     * the service did not write (a plan run), so nothing it set, even for the session, outlives it on the pooled
     * connection.
     */
    public <T> Uni<T> inTenantRolledBack(Person person, Function<SqlConnection, Uni<T>> read) {
        return grants.secretFor(person).flatMap(secret -> pool.withConnection(sql -> sql.begin()
                .flatMap(transaction -> sql
                        .preparedQuery(NAME_GRANT)
                        .execute(Tuple.of(secret))
                        .flatMap(ignored -> read.apply(sql))
                        .onItemOrFailure().call((item, failure) -> transaction.rollback()
                                .onFailure().recoverWithNull()))));
    }

    public <T> Uni<T> inTenant(Person person, Function<SqlConnection, Uni<T>> read) {
        return grants.secretFor(person).flatMap(secret -> pool.withTransaction(sql -> sql
                .preparedQuery(NAME_GRANT)
                .execute(Tuple.of(secret))
                .flatMap(ignored -> read.apply(sql))));
    }

    /** One query in its own tenant transaction, each row mapped, waited for at most {@link #TIMEOUT}. */
    public <T> List<T> list(Person person, String query, Tuple arguments, Function<Row, T> mapper) {
        return inTenant(person, sql -> sql.preparedQuery(query).execute(arguments))
                .map(rows -> map(rows, mapper))
                .await().atMost(TIMEOUT);
    }

    public static <T> List<T> map(RowSet<Row> rows, Function<Row, T> mapper) {
        List<T> list = new ArrayList<>();
        rows.forEach(row -> list.add(mapper.apply(row)));
        return list;
    }
}
