package dev.countersign.executor.seconddevice;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ActionView;
import dev.countersign.executor.access.Caller;
import dev.countersign.executor.access.DecisionRule;
import dev.countersign.executor.access.Principal;
import dev.countersign.executor.action.ActionReads;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.db.TenantSessions;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * {@code GET /api/second-device/requests}: the caller's own pending second-device requests, each with its code and the
 * action as the decision page shows it (headline, parameters, the change it makes), for the approval device to show
 * beside the code the identity provider sent it. What the device shows is read here, from the executor's records, never
 * from what the provider's request carried. Only the caller's own: the requests sent to them, of actions that still
 * wait and that the decision rule lets them read. Deciding is not done here: the answer goes back through the identity
 * provider, and the executor takes it from there.
 */
@Path("/api/second-device/requests")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class SecondDeviceResource {

    /** One request: its code (the CIBA binding message), until when it waits, and its action. */
    public record Pending(String code, UUID actionId, Instant expiresAt, ActionView action) {
    }

    private final CurrentUser user;
    private final Caller caller;
    private final TenantTransactions transactions;
    private final TenantSessions sessions;
    private final SecondDeviceRepository requests;
    private final ActionRepository actions;
    private final ActionReads reads;

    public SecondDeviceResource(CurrentUser user, Caller caller, TenantTransactions transactions,
            TenantSessions sessions, SecondDeviceRepository requests, ActionRepository actions, ActionReads reads) {
        this.user = user;
        this.caller = caller;
        this.transactions = transactions;
        this.sessions = sessions;
        this.requests = requests;
        this.actions = actions;
        this.reads = reads;
    }

    @GET
    public Uni<List<Pending>> pending() {
        Principal who = caller.principal();
        if (who.service()) {
            throw new ProblemException(ErrorCode.FORBIDDEN, "A service principal has no second device: requests are"
                    + " sent to people.");
        }
        String tenantId = user.tenantId();
        var via = caller.channel();
        return transactions.read(tenantId, sql -> requests.pendingFor(sql, tenantId, who.userId())
                .flatMap(mine -> Multi.createFrom().iterable(mine)
                        .onItem().transformToUniAndConcatenate(request -> actions
                                .find(sql, request.actionId(), tenantId)
                                .map(action -> new Found(request, action)))
                        .collect().asList()))
                .map(found -> found.stream().filter(one -> one.action() != null
                        && one.request().expiresAt().isAfter(Instant.now())
                        && one.action().status() == ActionStatus.PROPOSED
                        && !DecisionRule.hidesFrom(who, one.action().tier(),
                                one.action().requesterFor(who.userId()), one.action().targetOwner(), via))
                        .toList())
                .flatMap(shown -> shown.isEmpty()
                        ? Uni.createFrom().item(List.<Pending>of())
                        : sessions.read(tenantId, () -> reads.pageNames(tenantId)).map(names -> {
                            List<Pending> pending = new ArrayList<>();
                            shown.forEach(one -> pending.add(new Pending(one.request().bindingCode(),
                                    one.action().id(), one.request().expiresAt(), one.action().toView(names))));
                            return pending;
                        }));
    }

    private record Found(SecondDeviceRequest request, ActionRow action) {
    }
}
