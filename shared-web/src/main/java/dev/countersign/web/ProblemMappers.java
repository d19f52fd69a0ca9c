package dev.countersign.web;

import java.util.Comparator;
import java.util.List;
import java.util.UUID;

import jakarta.validation.ConstraintViolationException;
import jakarta.validation.ElementKind;
import jakarta.validation.Path;
import jakarta.validation.ValidationException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.Problem;
import dev.countersign.contracts.catalogue.Violation;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;

/**
 * Every error of either service leaves as application/problem+json with a stable code; never a stack trace or a class
 * name.
 */
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);
    private static final Problem UNAUTHENTICATED = Problem.of(ErrorCode.UNAUTHENTICATED,
            "Send a valid bearer token (Authorization: Bearer ...) that names your tenant and user.");
    private static final Problem FORBIDDEN = Problem.of(ErrorCode.FORBIDDEN, "You are not allowed to do this.");
    /** Sent with {@code database_unavailable}: when a client may try again. */
    static final String RETRY_AFTER_SECONDS = "5";
    private static final Problem DATABASE_DOWN = Problem.of(ErrorCode.DATABASE_UNAVAILABLE, ("The database cannot be"
            + " reached right now, so this request was not carried out (unless the connection broke just as it"
            + " committed). Retrying after %s seconds is safe: an action is executed at most once, and a request that"
            + " did go through answers with the action's state.").formatted(RETRY_AFTER_SECONDS));
    private static final Problem UNREADABLE_BODY = Problem.of(ErrorCode.VALIDATION_FAILED,
            "The request body is not valid JSON of the expected shape for this call.");

    @ServerExceptionMapper
    public Response problem(ProblemException e) {
        Response.ResponseBuilder response = builder(e.problem());
        e.retryAfter().ifPresent(wait -> response.header(HttpHeaders.RETRY_AFTER,
                String.valueOf(ProblemException.wholeSeconds(wait))));
        return response.build();
    }

    @ServerExceptionMapper({UnauthorizedException.class, AuthenticationFailedException.class})
    public Response unauthenticated(RuntimeException e) {
        return answer(e);
    }

    @ServerExceptionMapper
    public Response notFound(NotFoundException e) {
        return answer(e);
    }

    /**
     * A request that breaks the constraints of its record or parameters (Hibernate Validator): 400
     * {@code validation_failed} naming every broken field, as a hand-written check answered.
     */
    @ServerExceptionMapper
    public Response constraintViolation(ConstraintViolationException e) {
        return answer(e);
    }

    /**
     * A validation that failed otherwise than by a broken constraint (a validator that threw, a misdeclared
     * constraint): our fault, answered as an unexpected error rather than by Quarkus' own body.
     */
    @ServerExceptionMapper
    public Response validationBroken(ValidationException e) {
        return answer(e);
    }

    /** What the HTTP layer refuses before a resource runs: wrong method, media type, unreadable body. */
    @ServerExceptionMapper
    public Response webApplication(WebApplicationException e) {
        return answer(e);
    }

    /** Unreadable JSON bodies; ahead of the JSON extension's own mapper, which answers in plain JSON. */
    @ServerExceptionMapper(value = {JsonProcessingException.class, JsonParseException.class,
            MismatchedInputException.class, InvalidFormatException.class}, priority = Priorities.USER - 100)
    public Response unreadableJson(JsonProcessingException e) {
        return answer(e);
    }

    /** Everything else; some exceptions of the HTTP layer arrive here rather than at their own mapper. */
    @ServerExceptionMapper
    public Response unexpected(Throwable e) {
        return answer(e);
    }

    private static Response answer(Throwable e) {
        return respond(problemOf(e));
    }

    /**
     * The one place that decides which problem an exception is; only what no case names is an unexpected error (logged
     * with an incident id). Public for answers that are not a plain HTTP response, such as an event of a stream.
     */
    public static Problem problemOf(Throwable e) {
        if (e instanceof ProblemException problem) {
            return problem.problem();
        }
        if (e instanceof UnauthorizedException || e instanceof AuthenticationFailedException) {
            return UNAUTHENTICATED;
        }
        if (e instanceof ForbiddenException) {
            return FORBIDDEN;
        }
        if (e instanceof JsonProcessingException) {
            return UNREADABLE_BODY;
        }
        if (e instanceof WebApplicationException web) {
            return refusedByHttpLayer(web);
        }
        if (e instanceof ConstraintViolationException invalid) {
            return invalid(invalid);
        }
        if (DatabaseFailures.isUnavailable(e)) {
            LOG.warnf("Answered 503: the database is unavailable (%s)", e.toString());
            return DATABASE_DOWN;
        }
        return internal(e);
    }

    private static Problem invalid(ConstraintViolationException e) {
        List<Violation> violations = e.getConstraintViolations().stream()
                .map(violation -> new Violation(field(violation.getPropertyPath()), violation.getMessage()))
                .sorted(Comparator.comparing(Violation::field).thenComparing(Violation::message)).toList();
        return Problem.of(ErrorCode.VALIDATION_FAILED, "The request is not valid; nothing was done.")
                .withViolations(violations);
    }

    /**
     * The broken field as the caller wrote it: the path without the resource method and its parameter
     * ({@code send.request.text} is {@code text}, {@code transactionIds[2]} an element); the whole body is
     * {@code body}.
     */
    static String field(Path path) {
        StringBuilder field = new StringBuilder();
        for (Path.Node node : path) {
            if (node.getKind() == ElementKind.METHOD || node.getKind() == ElementKind.PARAMETER) {
                continue;
            }
            // An element of a list is marked on the node after the list: items[1].actionId is "items", then
            // "actionId" in the iterable at index 1.
            if (node.isInIterable()) {
                field.append('[').append(node.getIndex() != null ? node.getIndex() : node.getKey()).append(']');
            }
            if (node.getName() != null && !node.getName().startsWith("<")) {
                field.append(field.isEmpty() ? "" : ".").append(node.getName());
            }
        }
        return field.isEmpty() ? "body" : field.toString();
    }

    private static Problem refusedByHttpLayer(WebApplicationException e) {
        int status = e.getResponse().getStatus();
        return switch (status) {
            case 400 -> UNREADABLE_BODY;
            case 401 -> UNAUTHENTICATED;
            case 403 -> FORBIDDEN;
            case 404 -> Problem.of(ErrorCode.NOT_FOUND, "No such resource.");
            case 405 -> Problem.of(ErrorCode.METHOD_NOT_ALLOWED, "This path does not accept that method.");
            case 503 -> Problem.of(ErrorCode.UPSTREAM_UNAVAILABLE, "Try again in a moment.");
            case 415 -> Problem.of(ErrorCode.UNSUPPORTED_REQUEST,
                    "Send the body as JSON with Content-Type application/json.").withStatus(status);
            default -> status >= 400 && status < 500
                    ? Problem.of(ErrorCode.UNSUPPORTED_REQUEST,
                            "The request was refused (HTTP %d).".formatted(status)).withStatus(status)
                    : internal(e);
        };
    }

    private static Problem internal(Throwable e) {
        String incident = UUID.randomUUID().toString();
        LOG.errorf(e, "Unexpected error, incident %s", incident);
        return Problem.of(ErrorCode.INTERNAL, "Something went wrong on our side; incident " + incident + ".");
    }

    private static Response respond(Problem problem) {
        return builder(problem).build();
    }

    private static Response.ResponseBuilder builder(Problem problem) {
        Response.ResponseBuilder response = Response.status(problem.status()).type(Problem.MEDIA_TYPE).entity(problem);
        if (ErrorCode.DATABASE_UNAVAILABLE.code().equals(problem.code())) {
            response.header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS);
        }
        return response;
    }

}
