package dev.countersign.executor.db;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;

/**
 * Refuses to start an executor whose database role row-level security would not hold: a superuser, a role with
 * BYPASSRLS, or one that owns (or is a member of the owner of) a table under row-level security without FORCE. The
 * executor's statements rely on the policies to keep every row to the tenant the transaction named: many key lookups
 * compare {@code current_tenant()} with the caller's tenant rather than the row's {@code tenant_id} (ActionRepository's
 * class comment), and state changes address rows by id alone. Checked once, at start, on the main pool (the HTTP pool
 * logs in as the same role); the database must answer within a minute.
 * <p>
 * Limits: it checks the role the executor logged in as when it started; a privilege granted to that role later (ALTER
 * ROLE ... BYPASSRLS, a changed table owner) is not seen until the next start. Policies themselves are checked by
 * TenantIsolationTest, not here.
 */
@ApplicationScoped
public class RowSecurityGuard {

    private static final Logger LOG = Logger.getLogger(RowSecurityGuard.class);

    /** Whether the current role is privileged past row-level security, and the tables it owns that policies guard. */
    public static final String BYPASSES = """
            SELECT (SELECT r.rolsuper OR r.rolbypassrls FROM pg_catalog.pg_roles r WHERE r.rolname = current_user)
                       AS privileged,
                   (SELECT coalesce(string_agg(c.relname, ', ' ORDER BY c.relname), '') FROM pg_catalog.pg_class c
                    WHERE c.relnamespace = 'public'::regnamespace AND c.relrowsecurity AND NOT c.relforcerowsecurity
                      AND pg_catalog.pg_has_role(current_user, c.relowner, 'USAGE')) AS owned""";

    void check(@Observes StartupEvent start, Pool pool) {
        Row answer = pool.query(BYPASSES).execute()
                .onFailure().retry().withBackOff(Duration.ofSeconds(1), Duration.ofSeconds(5)).expireIn(60_000)
                .await().atMost(Duration.ofSeconds(70)).iterator().next();
        String problem = problem(answer.getBoolean("privileged"), answer.getString("owned"));
        if (problem != null) {
            throw new IllegalStateException(problem);
        }
        LOG.debug("The executor's database role is held by row-level security");
    }

    /** Why row-level security would not hold for the role, or null when it does. */
    static String problem(Boolean privileged, String owned) {
        if (Boolean.TRUE.equals(privileged)) {
            return "The executor's database role is a superuser or has BYPASSRLS: row-level security would not keep"
                    + " tenants apart. Run the executor as its own role (countersign_executor), never as an owner.";
        }
        if (owned != null && !owned.isEmpty()) {
            return ("The executor's database role owns tables under row-level security (%s): their policies would not"
                    + " apply to it. Run the executor as its own role (countersign_executor), never as an owner.")
                    .formatted(owned);
        }
        return null;
    }
}
