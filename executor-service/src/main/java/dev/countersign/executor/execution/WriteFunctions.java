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
 * At start, every database kind's write function, and undo function if it has one, must exist with the arguments the
 * gate calls it with ({@link DatabaseKind#WRITE_ARGUMENTS}, {@link Undoable#UNDO_ARGUMENTS}), be the executor's to run,
 * run with the caller's rights (not {@code SECURITY DEFINER}: as the tables' owner it would pass row-level security, so
 * another tenant's rows) and have its {@code search_path} pinned as the gate's functions do. A kind whose Java part
 * shipped without its repeatable migration, or whose function breaks these, stops the start here, not at its first
 * confirm. Limit: a function's body is not checked (a kind's own tests run it), nor a function changed after the start.
 */
@ApplicationScoped
public class WriteFunctions {

    /** The search_path every kind function sets, as pg_proc.proconfig holds it. */
    static final String PINNED_SEARCH_PATH = "search_path=pg_catalog, public, pg_temp";

    private final ExecutorRegistry kinds;
    private final Pool pool;

    public WriteFunctions(ExecutorRegistry kinds, Pool pool) {
        this.kinds = kinds;
        this.pool = pool;
    }

    void onStart(@Observes StartupEvent event) {
        List<String> functions = new ArrayList<>();
        List<String> answers = new ArrayList<>();
        for (DatabaseKind kind : kinds.databaseKinds()) {
            for (ExecutorRegistry.KindFunction function : ExecutorRegistry.kindFunctionsOf(kind)) {
                functions.add(function.procedure());
                answers.add(function.answers());
            }
        }
        List<String> missing = pool.preparedQuery("""
                SELECT f FROM unnest($1::text[], $2::text[]) AS wanted(f, answer)
                LEFT JOIN pg_proc p ON p.oid = to_regprocedure(f)
                WHERE p.oid IS NULL OR NOT has_function_privilege(p.oid, 'EXECUTE') OR p.prosecdef
                   OR NOT coalesce(p.proconfig @> ARRAY[$3], false) OR p.prokind <> 'f' OR p.proisstrict
                   OR p.proretset OR p.provolatile <> 'v' OR p.prorettype <> answer::regtype
                ORDER BY f""")
                .execute(Tuple.of(functions.toArray(String[]::new), answers.toArray(String[]::new),
                        PINNED_SEARCH_PATH))
                .map(rows -> {
                    List<String> names = new ArrayList<>();
                    rows.forEach(row -> names.add(row.getString("f")));
                    return names;
                })
                .await().atMost(Duration.ofSeconds(30));
        if (!missing.isEmpty()) {
            throw new IllegalStateException("These kinds' functions do not exist with these arguments, this role may"
                    + " not run them, or they are not plain volatile functions answering jsonb (a write) or void"
                    + " (an undo), or they are STRICT or SECURITY DEFINER or leave search_path unpinned (is the"
                    + " kind's repeatable migration missing?): " + missing);
        }
    }
}
