package dev.countersign.executor.external.egress;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.external.ExternalConfig;
import dev.countersign.executor.kind.ExternalKind;
import dev.countersign.executor.policy.TenantPolicyRepository;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;

/**
 * The runtime gate of external writes. The only code holding the raw mail and HTTP clients ({@link GatedMailer},
 * {@link GatedHttp}) serves a call only inside a scope this gate opened: for an action the database shows claimed
 * ({@code executing}), the scope is the kind's {@link dev.countersign.executor.kind.Egress}, its only way out; for a
 * notification its sender claimed, mail to that notification's one address, or HTTP to its webhook's origin if the
 * tenant's administrators put that origin on the allow-list. A call outside a scope throws and raises an administrator
 * alert ({@link UngatedCalls}).
 * <p>
 * Limit: the gate checks that a scope is open, that mail comes only from a kind that declares it sends mail (or goes to
 * the one address of a notification's scope) and that an HTTP request goes to the one origin the claimed action's kind
 * declares, not what the call carries; a notification's scope is opened on its sender's word that it claimed it (no
 * database check here, unlike an action's). An architecture test keeps the raw clients inside this package and the
 * opening of scopes in {@code ExternalExecution} and {@code NotificationSender}.
 */
@ApplicationScoped
public class ExternalGate {

    private final UngatedCalls ungated;
    private final TenantTransactions transactions;
    private final ActionRepository actions;
    private final GatedMailer mailer;
    private final GatedHttp http;
    private final TenantPolicyRepository policies;
    private final ExternalConfig config;

    public ExternalGate(UngatedCalls ungated, TenantTransactions transactions, ActionRepository actions,
            GatedMailer mailer, GatedHttp http, TenantPolicyRepository policies, ExternalConfig config) {
        this.policies = policies;
        this.config = config;
        this.ungated = ungated;
        this.transactions = transactions;
        this.actions = actions;
        this.mailer = mailer;
        this.http = http;
    }

    /**
     * A scope for the call of {@code claimed} by {@code kind}, opened only if the database says the action is
     * {@code executing} (its claim committed); otherwise the alert is raised and the Uni fails with
     * {@link UngatedCallException}. The caller closes the scope once the call is over.
     */
    public Uni<GateScope> open(ActionRow claimed, ExternalKind kind) {
        return transactions.read(claimed.tenantId(), sql -> actions.find(sql, claimed.id(), claimed.tenantId()))
                .map(current -> {
                    if (current == null || current.status() != ActionStatus.EXECUTING) {
                        throw ungated.refuse("scope for action " + claimed.id(), "not claimed (status "
                                + (current == null ? "unknown" : current.status().wireName()) + ")");
                    }
                    return new GateScope(claimed.id(), claimed.tenantId(), kind.sendsMail(), kind.httpOrigin(),
                            Optional.empty(), mailer, http);
                });
    }

    /**
     * A scope for one notification's webhook, opened by its sender once the notification was claimed: HTTP only, to
     * {@code url}'s origin only, and only if that origin is on the tenant's allow-list as the database holds it now
     * ({@code tenant_policies.webhook_origins}) and, unless the deployment allows private addresses, the host resolves
     * to public addresses only. Otherwise the Uni fails with {@link RefusedDestination} (the sender records the
     * refusal). The caller closes the scope once the request is over.
     * <p>
     * Limit: the host is resolved here and again when the client connects; a name whose answer changes in between (DNS
     * rebinding) can still reach a private address. Allow-list hosts you trust to answer the same.
     */
    public Uni<GateScope> openForWebhook(UUID actionId, String tenantId, URI url) {
        return transactions.read(tenantId, sql -> policies.webhookOrigins(sql, tenantId))
                .map(origins -> {
                    if (!Origins.allows(origins, url)) {
                        throw new RefusedDestination("the origin " + Origins.of(url)
                                + " is not on the tenant's webhook allow-list");
                    }
                    return url.getHost();
                })
                .flatMap(host -> config.webhookPrivateAddresses()
                        ? Uni.createFrom().voidItem()
                        : Uni.createFrom().item(() -> publicOnly(url, host))
                                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool()))
                .map(ignored -> new GateScope(actionId, tenantId, false, Optional.of(Origins.of(url)),
                        Optional.empty(), mailer, http));
    }

    static Void publicOnly(URI url, String host) {
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw new RefusedDestination("the host of " + Origins.of(url) + " does not resolve");
        }
        for (InetAddress address : addresses) {
            if (PrivateAddresses.isPrivate(address)) {
                throw new RefusedDestination("the host of " + Origins.of(url) + " resolves to a private address");
            }
        }
        return null;
    }

    /**
     * A scope for one notification's e-mail, opened by its sender once the notification was claimed and fenced
     * (NotificationSender): mail only, to {@code address} only (the one the notification was planned for), through the
     * one SMTP server of the mailer's configuration; no HTTP. The caller closes it once the send is over.
     */
    public GateScope openForNotification(UUID actionId, String tenantId, String address) {
        return new GateScope(actionId, tenantId, true, Optional.empty(), Optional.of(address), mailer, http);
    }
}
