package dev.countersign.executor.policy.change;

import java.time.Instant;
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

    /**
     * Holds the tenant's policies for this transaction (an advisory lock, so also for a tenant without a policy row
     * yet): changes, confirms and rejections of one tenant's policies take turns. Run as a statement, not read as a
     * query (see TenantSessions: a native SELECT read through Hibernate adds a plan-cache entry per run).
     */
    public Uni<Void> holdPolicies(String tenantId) {
        return Panache.getSession().flatMap(session -> session.createNativeQuery(
                "SELECT pg_advisory_xact_lock(hashtext('tenant-policies:' || :tenant))")
                .setParameter("tenant", tenantId).executeUpdate()).replaceWithVoid();
    }

    /** Marks the tenant's pending change of {@code setting}, if any, superseded by {@code by}'s newer one. */
    public Uni<Integer> supersede(String tenantId, String setting, String by) {
        return Panache.getSession().flatMap(session -> session.createNativeQuery("""
                UPDATE policy_changes SET status = 'superseded', decided_by = :by, decided_at = statement_timestamp()
                WHERE tenant_id = :tenant AND setting = :setting AND status = 'pending'""")
                .setParameter("by", by).setParameter("tenant", tenantId).setParameter("setting", setting)
                .executeUpdate());
    }

    /**
     * Stages a change proposed now. The JSON goes as text, cast by PostgreSQL: the reactive client would send a string
     * bound to a jsonb parameter as a JSON string.
     */
    public Uni<StoredChange> insert(String tenantId, String setting, JsonNode value, JsonNode base, String by,
            Instant proposedAt, Instant expiresAt) {
        UUID id = UUID.randomUUID();
        return Panache.getSession().flatMap(session -> session.createNativeQuery("""
                INSERT INTO policy_changes (id, tenant_id, setting, value, base, proposed_by, proposed_at, expires_at)
                VALUES (:id, :tenant, :setting, cast(cast(:value AS text) AS jsonb), cast(cast(:base AS text) AS jsonb),
                        :by, :proposed, :expires)""")
                .setParameter("id", id).setParameter("tenant", tenantId).setParameter("setting", setting)
                .setParameter("value", Json.write(value)).setParameter("base", Json.write(base))
                .setParameter("by", by).setParameter("proposed", proposedAt.atOffset(ZoneOffset.UTC))
                .setParameter("expires", expiresAt.atOffset(ZoneOffset.UTC))
                .executeUpdate())
                .map(inserted -> new StoredChange(id, setting, value, base, by, proposedAt, expiresAt, "pending", null,
                        null));
    }

    /** The change; null if the tenant has none with that id. */
    public Uni<StoredChange> find(String tenantId, UUID id) {
        return Panache.getSession().flatMap(session -> session.createSelectionQuery(
                "from PolicyChangeEntity where tenantId = :tenant and id = :id", PolicyChangeEntity.class)
                .setParameter("tenant", tenantId).setParameter("id", id).getResultList())
                .map(rows -> rows.isEmpty() ? null : StoredChange.of(rows.get(0)));
    }

    /** The tenant's changes still waiting for a second administrator at {@code now}, oldest first. */
    public Uni<List<StoredChange>> pending(String tenantId, Instant now) {
        return Panache.getSession().flatMap(session -> session.createSelectionQuery(
                "from PolicyChangeEntity where tenantId = :tenant and status = 'pending' and expiresAt > :now"
                        + " order by proposedAt, id",
                PolicyChangeEntity.class)
                .setParameter("tenant", tenantId).setParameter("now", now.atOffset(ZoneOffset.UTC)).getResultList())
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

        static StoredChange of(PolicyChangeEntity row) {
            return new StoredChange(row.id, row.setting, Json.read(row.value, JsonNode.class),
                    Json.read(row.base, JsonNode.class), row.proposedBy, row.proposedAt.toInstant(),
                    row.expiresAt.toInstant(), row.status, row.decidedBy, row.breakGlassBy);
        }

        /** The same change, decided: {@code status} by {@code by}. */
        public StoredChange decided(String status, String by) {
            return new StoredChange(id, setting, value, base, proposedBy, proposedAt, expiresAt, status, by,
                    breakGlassBy);
        }

        public PolicyChangeView view() {
            return new PolicyChangeView(id, setting, value, proposedBy, proposedAt, expiresAt, status, decidedBy,
                    breakGlassBy);
        }
    }
}
