package dev.countersign.executor.catalogue;

import java.time.Duration;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import io.quarkus.runtime.StartupEvent;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Records the declared kinds in {@code action_kinds} at start (migration V30), for the database's rules to read (the
 * external-call guard), so no rule names a kind. Upserted in one statement; a kind's external flag is never cleared
 * (V30; R__action_kinds.sql refuses it). Start-up fails if the database cannot be written: the guard would read a stale
 * list. Limit: a kind's row stays when its declaration is gone (harmless: no action of it is staged any more).
 */
@ApplicationScoped
public class KindRows {

    private final Pool pool;

    public KindRows(Pool pool) {
        this.pool = pool;
    }

    void onStart(@Observes StartupEvent event) {
        List<ActionDefinition> kinds = List.copyOf(ActionCatalogue.all());
        pool.preparedQuery("""
                INSERT INTO action_kinds (kind, external)
                SELECT * FROM unnest($1::text[], $2::boolean[])
                ON CONFLICT (kind) DO UPDATE SET external = true
                WHERE NOT action_kinds.external AND EXCLUDED.external""")
                .execute(Tuple.of(kinds.stream().map(ActionDefinition::kind).toArray(String[]::new),
                        kinds.stream().map(ActionDefinition::isExternal).toArray(Boolean[]::new)))
                .await().atMost(Duration.ofSeconds(30));
    }
}
