package dev.countersign.executor.policy.change;

import java.time.OffsetDateTime;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import org.hibernate.annotations.Formula;
import org.hibernate.annotations.Immutable;

/**
 * A staged policy change as read (table {@code policy_changes}, V28); written only by {@link PolicyChangeRepository}'s
 * statements, never by dirty checking. Read through HQL: a native SELECT run through Hibernate would add a plan-cache
 * entry per run (see TenantSessions).
 */
@Entity
@Immutable
@Table(name = "policy_changes")
public class PolicyChangeEntity {

    @Id
    public UUID id;
    @Column(name = "tenant_id")
    public String tenantId;
    public String setting;
    @Formula("value::text")
    public String value;
    @Formula("base::text")
    public String base;
    @Column(name = "proposed_by")
    public String proposedBy;
    @Column(name = "proposed_at")
    public OffsetDateTime proposedAt;
    @Column(name = "expires_at")
    public OffsetDateTime expiresAt;
    public String status;
    @Column(name = "decided_by")
    public String decidedBy;
    @Column(name = "break_glass_by")
    public String breakGlassBy;
}
