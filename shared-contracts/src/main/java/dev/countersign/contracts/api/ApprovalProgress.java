package dev.countersign.contracts.api;

import java.util.List;

/** A HIGH action's partial approvals: answered with 202 until the last one needed executes it. */
public record ApprovalProgress(ActionView action, List<String> approvers, int required) {
}
