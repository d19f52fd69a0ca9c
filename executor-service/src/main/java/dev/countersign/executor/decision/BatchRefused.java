package dev.countersign.executor.decision;

import java.util.List;

import dev.countersign.contracts.catalogue.Violation;

/** A batch confirm that cannot run as a whole; thrown inside its transaction so that nothing of it is kept. */
public class BatchRefused extends RuntimeException {

    private final transient List<Violation> reasons;

    public BatchRefused(List<Violation> reasons) {
        super("batch refused", null, false, false);
        this.reasons = List.copyOf(reasons);
    }

    /** One entry per action that stopped the batch: field is the action id. */
    public List<Violation> reasons() {
        return reasons;
    }
}
