package dev.countersign.contracts.api;

import java.util.List;

/**
 * An undo of an action that k > 1 approvers let run: answered with 202 until k distinct persons have asked for it
 * (docs/security/authorization.md, two persons for loosening).
 */
public record UndoProgress(ActionView action, List<String> undoApprovers, int required) {
}
