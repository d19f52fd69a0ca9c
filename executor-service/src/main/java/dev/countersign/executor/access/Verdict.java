package dev.countersign.executor.access;

/** What the rule answers. */
public enum Verdict {
    ALLOW, DENY
}
