package dev.countersign.contracts.api;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * Separation of duties for the tenant's HIGH actions: how many distinct approvers must confirm, and whether the user
 * who asked for the action may be one of them. The default (1, false) is a single confirmation by anyone of the tenant.
 */
public record ApprovalPolicy(
        @Min(value = 1, message = ApprovalPolicy.APPROVALS) @Max(value = ApprovalPolicy.MAX_APPROVALS, message = ApprovalPolicy.APPROVALS) int highApprovals,
        boolean highNeedsOtherApprover) {

    public static final ApprovalPolicy DEFAULT = new ApprovalPolicy(1, false);
    public static final int MAX_APPROVALS = 10;
    private static final String APPROVALS = "must be from 1 to " + MAX_APPROVALS;

    /**
     * Not part of the wire form: as a bean getter it would be a {@code default} member of the JSON and the OpenAPI
     * schema.
     */
    @JsonIgnore
    public boolean isDefault() {
        return highApprovals == 1 && !highNeedsOtherApprover;
    }
}
