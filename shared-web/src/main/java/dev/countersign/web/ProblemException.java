package dev.countersign.web;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ActionView;
import dev.countersign.contracts.api.Problem;

/** Thrown by resources to answer with problem+json. */
public class ProblemException extends RuntimeException {

    private final transient Problem problem;

    public ProblemException(ErrorCode code, String detail) {
        this(code, detail, null);
    }

    public ProblemException(ErrorCode code, String detail, ActionView action) {
        super(detail, null, false, false);
        Problem base = Problem.of(code, detail);
        this.problem = action == null ? base : base.withAction(action);
    }

    public Problem problem() {
        return problem;
    }
}
