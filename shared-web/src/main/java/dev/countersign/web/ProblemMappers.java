package dev.countersign.web;

import java.util.UUID;

import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.Problem;
import io.quarkus.security.AuthenticationFailedException;
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

    @ServerExceptionMapper
    public Response webApplication(WebApplicationException e) {
        int status = e.getResponse().getStatus();
        if (status == 400 || status == 415) {
            return respond(
                    Problem.of(ErrorCode.VALIDATION_FAILED, "The request body is not valid JSON for this call."));
        }
        return unexpected(e);
    }

    @ServerExceptionMapper
    public Response unexpected(Throwable e) {
        String incident = UUID.randomUUID().toString();
        LOG.errorf(e, "Unexpected error, incident %s", incident);
        return respond(Problem.of(ErrorCode.INTERNAL, "Something went wrong on our side; incident " + incident + "."));
    }

    private static Response respond(Problem problem) {
        return Response.status(problem.status()).type(Problem.MEDIA_TYPE).entity(problem).build();
    }
}
