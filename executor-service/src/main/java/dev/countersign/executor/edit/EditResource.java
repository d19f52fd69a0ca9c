package dev.countersign.executor.edit;

import java.net.URI;
import java.util.UUID;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.EditRequest;
import dev.countersign.contracts.json.ParamsHash;
import dev.countersign.executor.access.Caller;
import dev.countersign.executor.access.DecisionRule;
import dev.countersign.executor.access.Principal;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.Ids;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;

/**
 * {@code POST /api/actions/{id}/edit} ({@link ActionEdits}): 201 with the new action's view (and its address in
 * {@code Location}), which waits for its own decision; 404 for an action the caller may not read; 403 for one they may
 * not stop; 409 with the action's view when it is no longer proposed (someone decided it first) or not the one they
 * were shown; 400 for a change its kind does not let a person make.
 */
@Path("/api/actions/{id}/edit")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class EditResource {

    private final CurrentUser user;
    private final Caller caller;
    private final ActionEdits edits;

    public EditResource(CurrentUser user, Caller caller, ActionEdits edits) {
        this.user = user;
        this.caller = caller;
        this.edits = edits;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Response> edit(@PathParam("id") String id, EditRequest request) {
        UUID actionId = Ids.parseOrNotFound(id, ErrorCode.ACTION_NOT_FOUND, DecisionRule.NOT_FOUND);
        if (request == null || !ParamsHash.isWellFormed(request.paramsHash())) {
            throw new ProblemException(ErrorCode.PARAMS_HASH_REQUIRED, "Send the paramsHash of the action as you were"
                    + " shown it (64 lower-case hex digits, from GET /api/actions/{id}) and the params to change;"
                    + " nothing changed.");
        }
        Principal editor = caller.principal();
        return edits.edit(new ActionEdits.Edit(actionId, user.tenantId(), editor, caller.channel(),
                request.paramsHash(), request.params()))
                .map(edited -> Response.created(URI.create("/api/actions/" + edited.id()))
                        .entity(edited.toView().withYouMay(Caller.mayDo(editor, caller.channel(), edited.tier(),
                                edited.requesterFor(editor.userId()), edited.targetOwner())))
                        .build());
    }
}
