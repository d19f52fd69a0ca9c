package dev.countersign.web;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ActionView;
import dev.countersign.contracts.api.Problem;
import dev.countersign.contracts.catalogue.Violation;

/** Thrown by resources to answer with problem+json. */
public class ProblemException extends RuntimeException {

    private final transient Problem problem;

    public ProblemException(ErrorCode code, String detail) {
        this(code, detail, (ActionView) null);
    }

    public ProblemException(ErrorCode code, String detail, ActionView action) {
        super(detail, null, false, false);
        Problem base = Problem.of(code, detail);
        this.problem = action == null ? base : base.withAction(action);
    }

    public ProblemException(ErrorCode code, String detail, java.util.List<Violation> violations) {
        super(detail, null, false, false);
        this.problem = Problem.of(code, detail).withViolations(violations);
    }

    public Problem problem() {
        return problem;
    }
}
