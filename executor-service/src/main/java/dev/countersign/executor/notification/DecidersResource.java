package dev.countersign.executor.notification;

import java.util.UUID;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.executor.access.Caller;
import dev.countersign.executor.access.DecisionRule;
import dev.countersign.executor.access.Principal;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.members.TenantDeciders;
import dev.countersign.executor.seconddevice.SecondDeviceRepository;
import dev.countersign.executor.seconddevice.SecondDeviceRequest;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.Ids;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;

/**
 * Who may decide an action ({@link dev.countersign.executor.members.Deciders}), who was told of it and when it was
 * reminded, for whoever may read it: 404 {@code action_not_found} otherwise, as for the action itself.
 */
@Path("/api/actions/{id}/deciders")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class DecidersResource {

    private final CurrentUser user;
    private final Caller caller;
    private final TenantTransactions transactions;
    private final ActionRepository actions;
    private final TenantDeciders deciders;
    private final NotificationRepository notifications;
    private final SecondDeviceRepository secondDevice;

    public DecidersResource(CurrentUser user, Caller caller, TenantTransactions transactions,
            ActionRepository actions, TenantDeciders deciders, NotificationRepository notifications,
            SecondDeviceRepository secondDevice) {
        this.secondDevice = secondDevice;
        this.notifications = notifications;
        this.user = user;
        this.caller = caller;
        this.transactions = transactions;
        this.actions = actions;
        this.deciders = deciders;
    }

    @GET
    public Uni<ActionDeciders> deciders(@PathParam("id") String id) {
        UUID actionId = Ids.parseOrNotFound(id, ErrorCode.ACTION_NOT_FOUND, DecisionRule.NOT_FOUND);
        String tenantId = user.tenantId();
        Principal who = caller.principal();
        var via = caller.channel();
        return transactions.read(tenantId, sql -> actions.find(sql, actionId, tenantId).flatMap(action -> {
            if (action == null || DecisionRule.hidesFrom(who, action.tier(), action.requesterFor(who.userId()),
                    action.targetOwner(), via)) {
                throw new ProblemException(ErrorCode.ACTION_NOT_FOUND, DecisionRule.NOT_FOUND);
            }
            return deciders.read(sql, tenantId).flatMap(known -> notifications.told(sql, tenantId, actionId)
                    .flatMap(told -> notifications.remindedAt(sql, tenantId, actionId)
                            .map(remindedAt -> new ActionDeciders(actionId, known.of(action).stream()
                                    .map(member -> new ActionDeciders.Decider(member.userId(), member.username()))
                                    .toList(), known.seenSince(), told, remindedAt, null))))
                    .flatMap(answer -> secondDevice.forAction(sql, tenantId, actionId).map(requests -> answer
                            .withSecondDeviceCode(requests.stream()
                                    .filter(request -> request.userId().equals(who.userId())
                                            && SecondDeviceRequest.PENDING.equals(request.state()))
                                    .map(SecondDeviceRequest::bindingCode).findFirst().orElse(null))));
        }));
    }
}
