package dev.countersign.web;

import java.time.Duration;
import java.util.Optional;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ActionView;
import dev.countersign.contracts.api.Problem;
import dev.countersign.contracts.catalogue.Violation;

/** Thrown by resources to answer with problem+json. */
public class ProblemException extends RuntimeException {

    private final transient Problem problem;
    private final transient Duration retryAfter;

    public ProblemException(ErrorCode code, String detail) {
        this(code, detail, (ActionView) null);
    }

    public ProblemException(ErrorCode code, String detail, ActionView action) {
        super(detail, null, false, false);
        Problem base = Problem.of(code, detail);
        this.problem = action == null ? base : base.withAction(action);
        this.retryAfter = null;
    }

    /** A problem the caller may retry after {@code retryAfter} (sent as {@code Retry-After}, in whole seconds). */
    public ProblemException(ErrorCode code, String detail, Duration retryAfter) {
        super(detail, null, false, false);
        this.problem = Problem.of(code, detail);
        this.retryAfter = retryAfter;
    }

    public ProblemException(ErrorCode code, String detail, java.util.List<Violation> violations) {
        super(detail, null, false, false);
        this.problem = Problem.of(code, detail).withViolations(violations);
        this.retryAfter = null;
    }

    public Problem problem() {
        return problem;
    }

    /** {@code wait} as the whole seconds a {@code Retry-After} says: rounded up, at least 1. */
    public static long wholeSeconds(Duration wait) {
        return Math.max(1, (wait.toMillis() + 999) / 1000);
    }

    /** When the caller may try again, or empty if the problem does not say. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
