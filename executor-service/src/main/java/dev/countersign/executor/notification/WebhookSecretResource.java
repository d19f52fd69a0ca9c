package dev.countersign.executor.notification;

import java.util.Map;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.policy.PolicyAdministrators;
import dev.countersign.web.CurrentUser;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;

/**
 * The secret the tenant's webhooks are signed with, for its administrators (people only) to give their receivers:
 * {@code {"secret": "whsec_..."}}, a Standard Webhooks key. Nobody else reads it.
 */
@Path("/api/actions/policy/webhook-secret")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class WebhookSecretResource {

    private final CurrentUser user;
    private final TenantTransactions transactions;
    private final WebhookSecrets secrets;

    public WebhookSecretResource(CurrentUser user, TenantTransactions transactions, WebhookSecrets secrets) {
        this.user = user;
        this.transactions = transactions;
        this.secrets = secrets;
    }

    @GET
    @PolicyAdministrators.Only
    public Uni<Map<String, String>> secret() {
        return transactions.run(new Actor(user.tenantId(), user.userId(), NotificationPlanner.CHANNEL),
                sql -> secrets.of(sql, user.tenantId())).map(secret -> Map.of("secret", secret));
    }
}
