package dev.countersign.executor.policy.change;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.api.PolicyChangeView;
import dev.countersign.contracts.json.Json;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;

/**
 * Staged policy changes (table {@code policy_changes}, V28), in the caller's tenant session (row-level security
 * applies). The database holds the two-person rule's backstop (R__policy_changes.sql): a change leaves pending once,
 * what was proposed never changes, and its proposer cannot be the one who applies it without an operator's exemption.
 */
@ApplicationScoped
public class PolicyChangeRepository {

    private static final String COLUMNS = """
            id, setting, value::text, base::text, proposed_by, proposed_at, expires_at, status, decided_by,
            break_glass_by""";

    /** Marks the tenant's pending change of {@code setting}, if any, superseded by {@code by}'s newer one. */
    public Uni<Integer> supersede(String tenantId, String setting, String by) {
        return Panache.getSession().flatMap(session -> session.createNativeQuery("""
                UPDATE policy_changes SET status = 'superseded', decided_by = :by, decided_at = statement_timestamp()
                WHERE tenant_id = :tenant AND setting = :setting AND status = 'pending'""")
                .setParameter("by", by).setParameter("tenant", tenantId).setParameter("setting", setting)
                .executeUpdate());
    }

    /**
     * Stages a change. The JSON goes as text, cast by PostgreSQL: the reactive client would send a string bound to a
     * jsonb parameter as a JSON string.
     */
    public Uni<StoredChange> insert(String tenantId, String setting, JsonNode value, JsonNode base, String by,
            Instant expiresAt) {
        UUID id = UUID.randomUUID();
        return Panache.getSession().flatMap(session -> session.createNativeQuery("""
                INSERT INTO policy_changes (id, tenant_id, setting, value, base, proposed_by, expires_at)
                VALUES (:id, :tenant, :setting, cast(cast(:value AS text) AS jsonb), cast(cast(:base AS text) AS jsonb),
                        :by, :expires)""")
                .setParameter("id", id).setParameter("tenant", tenantId).setParameter("setting", setting)
                .setParameter("value", Json.write(value)).setParameter("base", Json.write(base))
                .setParameter("by", by).setParameter("expires", expiresAt.atOffset(ZoneOffset.UTC))
                .executeUpdate())
                .flatMap(inserted -> find(tenantId, id, false));
    }

    /** The change, locked for a decision if {@code forUpdate}; null if the tenant has none with that id. */
    public Uni<StoredChange> find(String tenantId, UUID id, boolean forUpdate) {
        return Panache.getSession().flatMap(session -> session.createNativeQuery(
                "SELECT " + COLUMNS + " FROM policy_changes WHERE tenant_id = :tenant AND id = :id"
                        + (forUpdate ? " FOR UPDATE" : ""),
                Object[].class)
                .setParameter("tenant", tenantId).setParameter("id", id).getResultList())
                .map(rows -> rows.isEmpty() ? null : StoredChange.of(rows.get(0)));
    }

    /** The tenant's changes still waiting for a second administrator, oldest first. */
    public Uni<List<StoredChange>> pending(String tenantId) {
        return Panache.getSession().flatMap(session -> session.createNativeQuery("SELECT " + COLUMNS
                + " FROM policy_changes WHERE tenant_id = :tenant AND status = 'pending'"
                + " AND expires_at > statement_timestamp() ORDER BY proposed_at, id", Object[].class)
                .setParameter("tenant", tenantId).getResultList())
                .map(rows -> rows.stream().map(StoredChange::of).toList());
    }

    /** pending -> {@code status} ({@code applied}, {@code rejected}) by {@code by}; whether this call moved it. */
    public Uni<Boolean> decide(String tenantId, UUID id, String status, String by) {
        return Panache.getSession().flatMap(session -> session.createNativeQuery("""
                UPDATE policy_changes SET status = :status, decided_by = :by, decided_at = statement_timestamp()
                WHERE tenant_id = :tenant AND id = :id AND status = 'pending'""")
                .setParameter("status", status).setParameter("by", by).setParameter("tenant", tenantId)
                .setParameter("id", id).executeUpdate())
                .map(updated -> updated == 1);
    }

    /** A row of {@code policy_changes} as stored. */
    public record StoredChange(UUID id, String setting, JsonNode value, JsonNode base, String proposedBy,
            Instant proposedAt, Instant expiresAt, String status, String decidedBy, String breakGlassBy) {

        static StoredChange of(Object[] row) {
            return new StoredChange((UUID) row[0], (String) row[1], Json.read((String) row[2], JsonNode.class),
                    Json.read((String) row[3], JsonNode.class), (String) row[4], instant(row[5]), instant(row[6]),
                    (String) row[7], (String) row[8], (String) row[9]);
        }

        private static Instant instant(Object value) {
            if (value instanceof Instant instant) {
                return instant;
            }
            if (value instanceof OffsetDateTime time) {
                return time.toInstant();
            }
            return ((java.sql.Timestamp) value).toInstant();
        }

        public PolicyChangeView view() {
            return new PolicyChangeView(id, setting, value, proposedBy, proposedAt, expiresAt, status, decidedBy,
                    breakGlassBy);
        }
    }
}
