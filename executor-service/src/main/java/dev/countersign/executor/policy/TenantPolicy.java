package dev.countersign.executor.policy;

import java.math.BigDecimal;
import java.time.OffsetDateTime;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A tenant's policies as an administrator set them (table {@code tenant_policies}); a column left null follows the
 * default ({@link PolicySettingsRepository}). Written only by that repository's upserts, never by dirty checking; a
 * trigger appends each change to {@code tenant_policy_history}. The staging path reads the auto-apply budget's columns
 * natively ({@link AutoApplyBudgets}, where it is spent); the six are set together or not at all.
 */
@Entity
@Table(name = "tenant_policies")
public class TenantPolicy {

    @Id
    @Column(name = "tenant_id")
    public String tenantId;
    @Column(name = "agent_writes")
    public String agentWrites;
    @Column(name = "updated_by", nullable = false)
    public String updatedBy;
    @Column(name = "updated_at", nullable = false)
    public OffsetDateTime updatedAt;
    @Column(name = "high_approvals", nullable = false)
    public int highApprovals;
    @Column(name = "high_needs_other_approver", nullable = false)
    public boolean highNeedsOtherApprover;
    @Column(name = "high_impact_threshold", precision = 14, scale = 2)
    public BigDecimal highImpactThreshold;
    @Column(name = "external_sends")
    public String externalSends;
    @Column(name = "auto_apply_turn_count")
    public Integer autoApplyTurnCount;
    @Column(name = "auto_apply_turn_amount", precision = 14, scale = 2)
    public BigDecimal autoApplyTurnAmount;
    @Column(name = "auto_apply_user_day_count")
    public Integer autoApplyUserDayCount;
    @Column(name = "auto_apply_user_day_amount", precision = 14, scale = 2)
    public BigDecimal autoApplyUserDayAmount;
    @Column(name = "auto_apply_tenant_day_count")
    public Integer autoApplyTenantDayCount;
    @Column(name = "auto_apply_tenant_day_amount", precision = 14, scale = 2)
    public BigDecimal autoApplyTenantDayAmount;
    @Column(name = "mcp_auto_apply_kinds")
    public String[] mcpAutoApplyKinds;
    @Column(name = "webhook_origins")
    public String[] webhookOrigins;
    @Column(name = "second_device_kinds")
    public String[] secondDeviceKinds;
}
