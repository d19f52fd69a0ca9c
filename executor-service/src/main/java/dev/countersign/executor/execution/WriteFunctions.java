package dev.countersign.executor.execution;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import dev.countersign.executor.kind.DatabaseKind;
import io.quarkus.runtime.StartupEvent;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * At start, every database kind's write function must exist with the signature the gate calls it with
 * ({@link DatabaseKind}): a kind whose Java part shipped without its repeatable migration stops the start here, not at
 * its first confirm. Limit: the function's body is not checked (a kind's own tests run it).
 */
@ApplicationScoped
public class WriteFunctions {

    /** The argument types every write function takes. */
    static final String SIGNATURE = "(uuid, text, text, jsonb, bigint)";

    private final ExecutorRegistry kinds;
    private final Pool pool;

    public WriteFunctions(ExecutorRegistry kinds, Pool pool) {
        this.kinds = kinds;
        this.pool = pool;
    }

    void onStart(@Observes StartupEvent event) {
        List<String> functions = kinds.databaseKinds().stream().map(DatabaseKind::writeFunction).toList();
        List<String> missing = pool
                .preparedQuery(
                        """
                                SELECT f FROM unnest($1::text[]) AS f
                                WHERE to_regprocedure(f || $2) IS NULL OR NOT has_function_privilege(to_regprocedure(f || $2), 'EXECUTE')
                                ORDER BY f""")
                .execute(Tuple.of(functions.toArray(String[]::new), SIGNATURE))
                .map(rows -> {
                    List<String> names = new ArrayList<>();
                    rows.forEach(row -> names.add(row.getString("f")));
                    return names;
                })
                .await().atMost(Duration.ofSeconds(30));
        if (!missing.isEmpty()) {
            throw new IllegalStateException("These kinds' write functions do not exist as " + SIGNATURE
                    + " or this role may not run them (is the kind's repeatable migration missing?): " + missing);
        }
    }
}
