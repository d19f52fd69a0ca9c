package dev.countersign.web;

import java.util.UUID;

import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.Problem;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;

/**
 * Every error of either service leaves as application/problem+json with a stable code; never a stack trace or a class
 * name.
 */
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);

    @ServerExceptionMapper
    public Response problem(ProblemException e) {
        return respond(e.problem());
    }

    @ServerExceptionMapper({UnauthorizedException.class, AuthenticationFailedException.class})
    public Response unauthenticated(RuntimeException e) {
        return respond(Problem.of(ErrorCode.UNAUTHENTICATED,
                "Send a valid bearer token (Authorization: Bearer ...) that names your tenant and user."));
    }

    @ServerExceptionMapper
    public Response notFound(NotFoundException e) {
        return respond(Problem.of(ErrorCode.NOT_FOUND, "No such resource."));
    }

    /** What the HTTP layer refuses before a resource runs: wrong method, media type, unreadable body. */
    @ServerExceptionMapper
    public Response webApplication(WebApplicationException e) {
        int status = e.getResponse().getStatus();
        return switch (status) {
            case 400 -> respond(Problem.of(ErrorCode.VALIDATION_FAILED,
                    "The request body is not valid JSON of the expected shape for this call."));
            case 401 -> unauthenticated(e);
            case 404 -> notFound(null);
            case 405 -> respond(Problem.of(ErrorCode.METHOD_NOT_ALLOWED, "This path does not accept that method."));
            case 403 -> respond(Problem.of(ErrorCode.FORBIDDEN, "You are not allowed to do this."));
            case 503 -> respond(Problem.of(ErrorCode.UPSTREAM_UNAVAILABLE, "Try again in a moment."));
            case 415 -> respond(Problem.of(ErrorCode.UNSUPPORTED_REQUEST,
                    "Send the body as JSON with Content-Type application/json.").withStatus(status));
            default -> status >= 400 && status < 500
                    ? respond(Problem.of(ErrorCode.UNSUPPORTED_REQUEST,
                            "The request was refused (HTTP %d).".formatted(status)).withStatus(status))
                    : internal(e);
        };
    }

    /** Unreadable JSON bodies; ahead of the JSON extension's own mapper, which answers in plain JSON. */
    @ServerExceptionMapper(value = {JsonProcessingException.class, JsonParseException.class,
            MismatchedInputException.class, InvalidFormatException.class}, priority = Priorities.USER - 100)
    public Response unreadableJson(JsonProcessingException e) {
        return respond(Problem.of(ErrorCode.VALIDATION_FAILED,
                "The request body is not valid JSON of the expected shape for this call."));
    }

    /**
     * Everything else. Some exceptions of the HTTP layer arrive here rather than at their own mapper, so this one
     * dispatches on the type again; only what is left is an unexpected error.
     */
    @ServerExceptionMapper
    public Response unexpected(Throwable e) {
        if (e instanceof ProblemException problem) {
            return problem(problem);
        }
        if (e instanceof ForbiddenException) {
            return respond(Problem.of(ErrorCode.FORBIDDEN, "You are not allowed to do this."));
        }
        if (e instanceof UnauthorizedException || e instanceof AuthenticationFailedException) {
            return unauthenticated((RuntimeException) e);
        }
        if (e instanceof JsonProcessingException json) {
            return unreadableJson(json);
        }
        if (e instanceof WebApplicationException web) {
            return webApplication(web);
        }
        return internal(e);
    }

    private static Response internal(Throwable e) {
        String incident = UUID.randomUUID().toString();
        LOG.errorf(e, "Unexpected error, incident %s", incident);
        return respond(Problem.of(ErrorCode.INTERNAL, "Something went wrong on our side; incident " + incident + "."));
    }

    private static Response respond(Problem problem) {
        return Response.status(problem.status()).type(Problem.MEDIA_TYPE).entity(problem).build();
    }

}
