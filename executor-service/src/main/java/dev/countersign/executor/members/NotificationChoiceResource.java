package dev.countersign.executor.members;

import java.net.URI;
import java.time.Instant;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.external.egress.Origins;
import dev.countersign.executor.policy.TenantPolicyRepository;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * A person's own choice of notification channels. Only their own: the path names nobody else, and a service principal
 * has none.
 */
@Path("/api/me/notifications")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class NotificationChoiceResource {

    private final CurrentUser user;
    private final JsonWebToken token;
    private final TenantTransactions transactions;
    private final MemberRepository members;
    private final TenantPolicyRepository policies;
    private final WebhookKeys keys;

    public NotificationChoiceResource(CurrentUser user, JsonWebToken token, TenantTransactions transactions,
            MemberRepository members, TenantPolicyRepository policies, WebhookKeys keys) {
        this.keys = keys;
        this.user = user;
        this.token = token;
        this.transactions = transactions;
        this.members = members;
        this.policies = policies;
    }

    /**
     * The person's choice; before they made one, both channels, with the address their token shows now and no webhook.
     */
    @GET
    public Uni<NotificationChoice> choice() {
        Sighting me = me();
        // Not a read-only transaction: the tenant's master webhook key is made on first use (WebhookKeys).
        return transactions.run(new Actor(me.tenantId(), me.userId(), MemberSightings.CHANNEL),
                sql -> members.find(sql, me.tenantId(), me.userId())
                        .flatMap(member -> member == null
                                ? Uni.createFrom().item(new NotificationChoice(true, true, false, me.email(), null,
                                        NotificationChoice.STANDARD, false, null))
                                : answer(sql, member)));
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<NotificationChoice> choose(@Valid @NotNull NotificationChoice choice) {
        Sighting me = me();
        return transactions.run(new Actor(me.tenantId(), me.userId(), MemberSightings.CHANNEL),
                sql -> members.seen(sql, me, Instant.ofEpochSecond(token.getIssuedAtTime()))
                        .flatMap(ignored -> members.choose(sql, me.tenantId(), me.userId(), choice))
                        .flatMap(ignored -> members.find(sql, me.tenantId(), me.userId()))
                        .flatMap(member -> answer(sql, member)));
    }

    /** The member's choice, whether their webhook's origin is allowed now, and its key (none without a URL). */
    private Uni<NotificationChoice> answer(SqlClient sql, Member member) {
        Uni<String> key = member.webhookUrl() == null
                ? Uni.createFrom().nullItem()
                : keys.of(sql, member.tenantId(), member.userId(), member.webhookUrl());
        return policies.webhookOrigins(sql, member.tenantId())
                .flatMap(origins -> key.map(secret -> new NotificationChoice(
                        member.notifyEmail(), member.notifyWebhook(), member.notifySecondDevice(), member.email(),
                        member.webhookUrl(),
                        member.webhookFormat(),
                        member.webhookUrl() != null && Origins.allows(origins, URI.create(member.webhookUrl())),
                        secret)));
    }

    private Sighting me() {
        if (user.isService()) {
            throw new ProblemException(ErrorCode.FORBIDDEN, "A service principal is told nothing: notifications are"
                    + " for people. Sign in as the person whose choice this is.");
        }
        return Sighting.of(user.tenantId(), user.userId(), user.groups(), token);
    }
}
