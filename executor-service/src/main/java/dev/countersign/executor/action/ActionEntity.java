package dev.countersign.executor.action;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import org.hibernate.annotations.Formula;
import org.hibernate.annotations.Immutable;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.Tier;

/**
 * An action as the pages read it (table {@code actions}), read-only: every write to an action is a native compare-and-
 * swap in {@link ActionRepository} (the staging and confirm paths), never Hibernate's. JSON columns are read as text
 * (formulas), so no JSON mapping sits between the database and {@link ActionRow}.
 */
@Entity
@Immutable
@Table(name = "actions")
public class ActionEntity {

    @Id
    public UUID id;
    @Column(name = "tenant_id")
    public String tenantId;
    @Column(name = "requested_by")
    public String requestedBy;
    @Column(name = "conversation_id")
    public String conversationId;
    @Column(name = "turn_id")
    public UUID turnId;
    public String kind;
    public String tier;
    public String status;
    @Formula("params::text")
    public String params;
    @JdbcTypeCode(SqlTypes.CHAR)
    @Column(name = "params_hash", length = 64)
    public String paramsHash;
    public String summary;
    @Column(name = "proposed_at")
    public OffsetDateTime proposedAt;
    @Column(name = "expires_at")
    public OffsetDateTime expiresAt;
    @Column(name = "confirmed_by")
    public String confirmedBy;
    @Column(name = "confirmed_at")
    public OffsetDateTime confirmedAt;
    @Column(name = "executed_at")
    public OffsetDateTime executedAt;
    @Formula("result::text")
    public String result;
    @Formula("idempotency_key(id)")
    public String idempotencyKey;
    @Column(name = "target_version")
    public Long targetVersion;
    @Formula("target_before::text")
    public String targetBefore;
    @Column(name = "auto_applied")
    public boolean autoApplied;
    @Column(name = "undone_by")
    public String undoneBy;
    @Column(name = "undone_at")
    public OffsetDateTime undoneAt;
    @Column(name = "trace_parent")
    public String traceParent;
    @Column(name = "held_reason")
    public String heldReason;
    @Column(name = "target_owner")
    public String targetOwner;
    @Column(name = "mcp_client")
    public String mcpClient;
    public UUID supersedes;
    @Column(name = "superseded_by")
    public UUID supersededBy;
    @Column(name = "prior_requesters")
    public String[] priorRequesters;

    /** The same row {@link ActionRepository} maps from its native reads. */
    ActionRow toRow() {
        return new ActionRow(id, tenantId, requestedBy, conversationId, turnId, kind, Tier.fromWire(tier),
                ActionStatus.fromWire(status), ActionRepository.json(params), paramsHash, summary, instant(proposedAt),
                instant(expiresAt), confirmedBy, instant(confirmedAt), instant(executedAt),
                ActionRepository.json(result), idempotencyKey, targetVersion, ActionRepository.json(targetBefore),
                autoApplied, undoneBy, instant(undoneAt), traceParent, heldReason, targetOwner, mcpClient,
                supersedes, supersededBy, priorRequesters == null ? List.of() : List.of(priorRequesters));
    }

    private static java.time.Instant instant(OffsetDateTime at) {
        return at == null ? null : at.toInstant();
    }
}
