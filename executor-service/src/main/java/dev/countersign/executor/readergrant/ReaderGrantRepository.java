package dev.countersign.executor.readergrant;

import java.time.Instant;
import java.time.ZoneOffset;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/** Reader grants in the database: minted by {@code open_reader_grant} (R__reader_grants.sql), which keeps the rules. */
@ApplicationScoped
public class ReaderGrantRepository {

    private final Pool pool;

    public ReaderGrantRepository(Pool pool) {
        this.pool = pool;
    }

    /** A new grant for {@code userId} of {@code tenantId} until {@code expiresAt}; answers its secret. */
    public Uni<String> open(String tenantId, String userId, Instant expiresAt) {
        return pool.preparedQuery("SELECT open_reader_grant($1, $2, $3) AS secret")
                .execute(Tuple.of(tenantId, userId, expiresAt.atOffset(ZoneOffset.UTC)))
                .map(rows -> rows.iterator().next().getString("secret"));
    }
}
