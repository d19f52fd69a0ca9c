package dev.countersign.executor.kind;

import java.util.Optional;

/**
 * The executor part of one catalogue kind: the row it changes and whose that row is. A kind is a CDI bean of
 * {@link DatabaseKind} or {@link ExternalKind}; the gate refuses to start with two parts for one kind or a part for a
 * kind the catalogue does not list.
 */
public interface ActionKind {

    /** The catalogue kind this part executes. */
    String kind();

    /** The existing row its actions change, read at staging into the action; empty: it changes no existing row. */
    default Optional<RowTarget> target() {
        return Optional.empty();
    }

    /** Its own check of a proposal at staging, if it has one. */
    default Optional<StagingCheck> stagingCheck() {
        return Optional.empty();
    }

    /**
     * Whose row its actions write: the decision rule's "target owner". No default: a kind that left it out would stage
     * with no owner, which the rule reads as the requester's own. Only an external kind may write a row nobody owns
     * (the gate refuses to start otherwise).
     */
    RowOwner owner();
}
