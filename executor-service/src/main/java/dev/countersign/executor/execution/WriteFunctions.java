package dev.countersign.executor.execution;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.Undoable;
import io.quarkus.runtime.StartupEvent;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * At start, every database kind's write function, and undo function if it has one, must exist with the signature the
 * gate calls it with ({@link DatabaseKind}, {@link Undoable}) and be the executor's to run: a kind whose Java part
 * shipped without its repeatable migration stops the start here, not at its first confirm. Limit: a function's body is
 * not checked (a kind's own tests run it).
 */
@ApplicationScoped
public class WriteFunctions {

    /** The argument types every write function takes. */
    static final String WRITE_SIGNATURE = "(uuid, text, text, jsonb, bigint)";
    /** The argument types every undo function takes. */
    static final String UNDO_SIGNATURE = "(uuid, text, jsonb, jsonb, jsonb)";

    private final ExecutorRegistry kinds;
    private final Pool pool;

    public WriteFunctions(ExecutorRegistry kinds, Pool pool) {
        this.kinds = kinds;
        this.pool = pool;
    }

    void onStart(@Observes StartupEvent event) {
        List<String> functions = new ArrayList<>();
        for (DatabaseKind kind : kinds.databaseKinds()) {
            functions.add(kind.writeFunction() + WRITE_SIGNATURE);
            if (kind instanceof Undoable undoable) {
                functions.add(undoable.undoFunction() + UNDO_SIGNATURE);
            }
        }
        List<String> missing = pool.preparedQuery("""
                SELECT f FROM unnest($1::text[]) AS f
                WHERE to_regprocedure(f) IS NULL OR NOT has_function_privilege(to_regprocedure(f), 'EXECUTE')
                ORDER BY f""")
                .execute(Tuple.of(functions.toArray(String[]::new)))
                .map(rows -> {
                    List<String> names = new ArrayList<>();
                    rows.forEach(row -> names.add(row.getString("f")));
                    return names;
                })
                .await().atMost(Duration.ofSeconds(30));
        if (!missing.isEmpty()) {
            throw new IllegalStateException("These kinds' functions do not exist with these arguments, or this role"
                    + " may not run them (is the kind's repeatable migration missing?): " + missing);
        }
    }
}
