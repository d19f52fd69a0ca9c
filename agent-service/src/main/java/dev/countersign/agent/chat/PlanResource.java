package dev.countersign.agent.chat;

import java.util.UUID;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.agent.planmode.PlanStatementRunner;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.PlanRunResult;
import dev.countersign.contracts.events.PlanEvent;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;

/**
 * What a plan turn of the caller's conversation delivered, and the person's read-only run of its drafted statement. The
 * agent itself never calls this: a statement runs only when its person asks.
 */
@Path("/api/conversations/{id}/plans/{turnId}")
@Authenticated
public class PlanResource {

    private final PlanStatementRunner runner;
    private final CurrentUser user;

    public PlanResource(PlanStatementRunner runner, CurrentUser user) {
        this.runner = runner;
        this.user = user;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public PlanEvent get(@PathParam("id") String conversationId, @PathParam("turnId") String turnId) {
        return runner.deliverable(ConversationResource.key(user, conversationId), turn(turnId));
    }

    @POST
    @Path("/run")
    @Produces(MediaType.APPLICATION_JSON)
    public PlanRunResult run(@PathParam("id") String conversationId, @PathParam("turnId") String turnId,
            @QueryParam("page") Integer page, @QueryParam("pageSize") Integer pageSize) {
        return runner.run(ConversationResource.key(user, conversationId), turn(turnId), page, pageSize);
    }

    private static UUID turn(String turnId) {
        try {
            return UUID.fromString(turnId);
        } catch (IllegalArgumentException e) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, "A turn id is a UUID, as a plan reply names it.");
        }
    }
}
