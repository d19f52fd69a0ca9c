package dev.countersign.executor.seconddevice;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;

/**
 * Starts a second-device request: asks the identity provider (OpenID CIBA) to have the person {@code loginHint} names
 * approve {@code action}, showing its {@link BindingCodes code}, then records the request with the action, its
 * parameters hash and the person ({@code second_device_requests}), which the {@link SecondDevicePoller} then polls.
 * Whether the person may decide the action is asked before, by the notification sender (the decision rule and the
 * tenant's approval policy, {@code Deciders}): a person they do not entitle is sent nothing.
 * <p>
 * The request lives {@link SecondDeviceConfig#requestExpiry()}, never longer than the action's window has left.
 * <p>
 * Limit: a sender that dies after the provider accepted and before the record leaves the notification to be sent again
 * after its lease: the person's device then shows a second prompt with the same code, of which only the recorded one is
 * polled (an answer to the other decides nothing). One that dies after the record starts nothing more.
 */
@ApplicationScoped
public class SecondDeviceStarter {

    private final Backchannel backchannel;
    private final SecondDeviceRepository requests;
    private final TenantTransactions transactions;
    private final SecondDeviceConfig config;

    public SecondDeviceStarter(Backchannel backchannel, SecondDeviceRepository requests,
            TenantTransactions transactions, SecondDeviceConfig config) {
        this.backchannel = backchannel;
        this.requests = requests;
        this.transactions = transactions;
        this.config = config;
    }

    /**
     * Refuses to start with second-device approvals on and no client secret, or no provider to ask: every request would
     * fail.
     */
    void onStart(@Observes StartupEvent started) {
        if (!config.enabled()) {
            return;
        }
        if (config.clientSecret().filter(secret -> !secret.isBlank()).isEmpty()) {
            throw new IllegalStateException("SECOND_DEVICE=true needs SECOND_DEVICE_CLIENT_SECRET, the secret of the"
                    + " executor's CIBA client (countersign.second-device.client-secret)");
        }
        if (config.lease().compareTo(config.timeout().multipliedBy(3)) < 0) {
            throw new IllegalStateException("countersign.second-device.lease (" + config.lease() + ") must be at least"
                    + " three times countersign.second-device.timeout (" + config.timeout() + "): a poll must end"
                    + " within its lease");
        }
        if (!backchannel.endpointsUsable()) {
            throw new IllegalStateException("SECOND_DEVICE=true needs the identity provider's endpoints: set"
                    + " OIDC_AUTH_SERVER_URL (Keycloak's paths under it), or SECOND_DEVICE_BACKCHANNEL_ENDPOINT and"
                    + " SECOND_DEVICE_TOKEN_ENDPOINT, absolute http(s) URLs of one origin");
        }
    }

    /** Whether second-device approvals are on. */
    public boolean enabled() {
        return config.enabled();
    }

    /** The identity provider refused the request for good (an unknown person, a refused code): not tried again. */
    public static final class Refused extends RuntimeException {

        Refused(String error) {
            super("the identity provider refused the request: " + error, null, false, false);
        }
    }

    /**
     * Starts the request of notification {@code notificationId} for {@code action} and records it, unless it was
     * recorded already. Fails with {@link Refused} when the provider refuses it for good; with another exception when
     * it may accept it later.
     */
    public Uni<Void> start(Actor actor, UUID notificationId, ActionRow action, String userId, String loginHint) {
        // A resend of a request that was recorded (its notification's own record then failed) starts none.
        return transactions.run(actor, sql -> requests.recorded(sql, action.tenantId(), notificationId))
                .flatMap(recorded -> recorded
                        ? Uni.createFrom().voidItem()
                        : startNew(actor, notificationId, action, userId, loginHint));
    }

    private Uni<Void> startNew(Actor actor, UUID notificationId, ActionRow action, String userId, String loginHint) {
        String code = BindingCodes.of(notificationId);
        Duration expiry = expiry(action);
        return backchannel.start(loginHint, code, expiry).flatMap(started -> {
            if (started instanceof Backchannel.Refused refused) {
                if (refused.retryable()) {
                    throw new IllegalStateException("the identity provider answered " + refused.error());
                }
                throw new Refused(refused.error());
            }
            Backchannel.Accepted accepted = (Backchannel.Accepted) started;
            int lifetime = accepted.expiresIn() > 0 ? accepted.expiresIn() : (int) expiry.toSeconds();
            SecondDeviceRequest request = new SecondDeviceRequest(notificationId, action.tenantId(), action.id(),
                    userId, action.paramsHash(), code, accepted.authReqId(), SecondDeviceRequest.PENDING,
                    Math.min(60, accepted.interval()), Instant.now().plusSeconds(lifetime), null, null);
            return transactions.run(actor, sql -> requests.record(sql, request));
        });
    }

    private Duration expiry(ActionRow action) {
        Duration configured = config.requestExpiry();
        if (action.expiresAt() == null) {
            return configured;
        }
        Duration left = Duration.between(Instant.now(), action.expiresAt());
        return left.compareTo(configured) < 0 ? left : configured;
    }
}
