package dev.countersign.executor.notification;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.background.SerialRuns;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.external.egress.ExternalGate;
import dev.countersign.executor.external.egress.GateScope;
import dev.countersign.executor.external.egress.RefusedDestination;
import dev.countersign.executor.members.Deciders;
import dev.countersign.executor.members.Member;
import dev.countersign.executor.members.TenantDeciders;
import dev.countersign.executor.members.WebhookKeys;
import dev.countersign.executor.policy.ApprovalRepository;
import dev.countersign.executor.seconddevice.SecondDeviceStarter;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Sends planned notifications, one at a time: claim it and ask whether it is still wanted (one committed transaction),
 * send, record (another). Every record names the attempt it claimed, so a sender whose claim another sender took over
 * records nothing.
 * <p>
 * Delivery is at least once, and says so:
 * <ul>
 * <li>a sender that dies after its claim and before the send leaves the notification pending; another claims it once
 * the lease ({@link NotificationsConfig#lease()}) ends, and the person gets one message;</li>
 * <li>one that dies after the mail server accepted the message and before the send was recorded leaves it pending too:
 * it is sent again after the lease, with the same {@code Message-ID}: one duplicate per such death;</li>
 * <li>a send that does not end within half the lease is abandoned, not stopped (the mail client cannot cancel one): it
 * is recorded as failed and tried again after the lease, so a mail server slower than half the lease may deliver it
 * twice, with the same {@code Message-ID};</li>
 * <li>after {@link NotificationsConfig#attempts()} claims, a notification is given up ({@code failed}).</li>
 * </ul>
 * Still wanted means: its action still waits for a person, and its person still may decide it ({@link Deciders}, with
 * the members and the approval policy as read at the start of the tenant's run), has not approved it already, and still
 * wants that channel's messages at that address, and the channel is on; otherwise it is {@code dropped}. A webhook goes
 * out only through the egress gate, which reads the tenant's allow-list when it is sent: to an origin not on it, the
 * notification is {@code refused} and not tried again. A second-device request is sent by starting it at the identity
 * provider ({@link SecondDeviceStarter}), after the same checks: one the provider refuses for good is {@code refused}.
 * Nothing here runs in a decision's transaction or holds a lock while a message is sent: a slow or unreachable mail
 * server or webhook delays notifications only (those after it on this instance, by at most its timeout), never a
 * decision.
 */
@ApplicationScoped
public class NotificationSender {

    private static final Logger LOG = Logger.getLogger(NotificationSender.class);
    private static final Duration MAX_SEND = Duration.ofMinutes(5);

    private final Pool pool;
    private final TenantTransactions transactions;
    private final NotificationRepository notifications;
    private final ActionRepository actions;
    private final ApprovalRepository approvals;
    private final ExternalGate gate;
    private final TenantDeciders deciders;
    private final NotificationsConfig config;
    private final WebhookKeys keys;
    private final SecondDeviceStarter secondDevice;
    private final SerialRuns runs = new SerialRuns("Sending notifications", this::runAgain);

    public NotificationSender(Pool pool, TenantTransactions transactions, NotificationRepository notifications,
            ActionRepository actions, ApprovalRepository approvals, ExternalGate gate, TenantDeciders deciders,
            NotificationsConfig config, WebhookKeys keys, SecondDeviceStarter secondDevice) {
        this.secondDevice = secondDevice;
        this.keys = keys;
        this.pool = pool;
        this.transactions = transactions;
        this.notifications = notifications;
        this.actions = actions;
        this.approvals = approvals;
        this.gate = gate;
        this.deciders = deciders;
        this.config = config;
    }

    /** Refuses to start with e-mail on and no decision page to link to: every notification would fail. */
    void onStart(@Observes StartupEvent started) {
        if ((config.email() || config.webhook())
                && config.decisionPageUrl().filter(WaitingNotice::isPageOrigin).isEmpty()) {
            throw new IllegalStateException("NOTIFY_EMAIL=true or NOTIFY_WEBHOOK=true needs DECISION_PAGE_URL, the"
                    + " decision page's origin people reach, an absolute http(s) URL such as https://decide.example.com"
                    + " (countersign.notifications.decision-page-url): every message links there");
        }
    }

    @Scheduled(identity = "notification-sender", every = "${countersign.notifications.poll-interval}", skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void poll() {
        wakeUp();
    }

    /** Asks for a run soon; runs never overlap within an instance, and a request during a run causes another. */
    public void wakeUp() {
        runs.request();
    }

    /** One run; again at once while it found a whole batch due. */
    private Uni<Boolean> runAgain() {
        return runOnce().map(due -> due >= config.batch());
    }

    /** One run over at most {@code batch} due notifications: how many were due. */
    private Uni<Integer> runOnce() {
        if (!config.email() && !config.webhook() && !secondDevice.enabled()) {
            // All off: what is pending waits (and is dropped if, once on again, it is no longer wanted). With one channel
            // off, its pending notifications are dropped when due (see claimed): off means not sent, not sent later.
            return Uni.createFrom().item(0);
        }
        return pool.preparedQuery("SELECT tenant_id, id FROM notifications_due($1)")
                .execute(Tuple.of(config.batch()))
                .flatMap(rows -> {
                    Map<String, List<UUID>> byTenant = new LinkedHashMap<>();
                    for (Row row : rows) {
                        byTenant.computeIfAbsent(row.getString("tenant_id"), tenant -> new ArrayList<>())
                                .add(row.getUUID("id"));
                    }
                    return Multi.createFrom().iterable(byTenant.entrySet())
                            .onItem().transformToUniAndConcatenate(due -> sendTenant(due.getKey(), due.getValue())
                                    // One tenant's failure (a row it cannot record) stops no other.
                                    .onFailure().recoverWithItem(failure -> {
                                        LOG.warnf("Sending notifications of tenant %s failed, will retry: %s",
                                                due.getKey(), failure.toString());
                                        return 0;
                                    }))
                            .collect().with(Collectors.summingInt(Integer::intValue))
                            .replaceWith(rows.size());
                });
    }

    /**
     * A claimed notification, its action, the person it is for, why it is no longer to be sent (null: send it), and for
     * a webhook the key it is signed with (its person's, for that URL).
     */
    private record Claimed(Notification notification, ActionRow action, Member member, String dropReason,
            String secret) {

        static Claimed dropped(Notification notification, ActionRow action, String reason) {
            return new Claimed(notification, action, null, reason, null);
        }

        Claimed signedWith(String tenantSecret) {
            return new Claimed(notification, action, member, dropReason, tenantSecret);
        }
    }

    private Uni<Integer> sendTenant(String tenantId, List<UUID> ids) {
        Actor actor = new Actor(tenantId, "system", NotificationPlanner.CHANNEL);
        return transactions.run(actor, sql -> notifications.giveUp(sql, tenantId, ids, config.attempts())
                .flatMap(ignored -> deciders.read(sql, tenantId)))
                .flatMap(rules -> Multi.createFrom().iterable(ids)
                        .onItem().transformToUniAndConcatenate(id -> claimAndSend(actor, tenantId, id, rules))
                        .collect().with(Collectors.summingInt(Integer::intValue)));
    }

    /** Claims one notification and, if it is still wanted, sends it; 1 if its send was recorded. */
    private Uni<Integer> claimAndSend(Actor actor, String tenantId, UUID id, TenantDeciders.Known rules) {
        return transactions.run(actor, sql -> notifications.claim(sql, tenantId, id, config.lease(), config.attempts())
                .flatMap(notification -> notification == null
                        ? Uni.createFrom().<Claimed>nullItem()
                        : stillWanted(sql, notification, rules)))
                .flatMap(claimed -> {
                    if (claimed == null) {
                        return Uni.createFrom().item(0);
                    }
                    if (claimed.dropReason() != null) {
                        return record(actor, claimed.notification(), "dropped", claimed.dropReason());
                    }
                    return switch (claimed.notification().channel()) {
                        case Notification.WEBHOOK -> postWebhook(actor, claimed);
                        case Notification.SECOND_DEVICE -> startOnSecondDevice(actor, claimed);
                        default -> deliver(actor, claimed.notification(), () -> sendEmail(claimed),
                                Throwable::toString, failure -> false);
                    };
                });
    }

    private Uni<Claimed> stillWanted(SqlClient sql, Notification notification, TenantDeciders.Known rules) {
        return actions.find(sql, notification.actionId(), notification.tenantId())
                .flatMap(action -> action == null || action.status() != ActionStatus.PROPOSED
                        ? Uni.createFrom().item(Claimed.dropped(notification, action,
                                "the action no longer waits for a person"))
                        : approvals.approvers(sql, action.id(), action.tenantId())
                                .map(approved -> claimed(notification, action, approved, rules)))
                .flatMap(claimed -> claimed.dropReason() == null
                        && Notification.WEBHOOK.equals(notification.channel())
                                ? keys.of(sql, notification.tenantId(), notification.recipient(),
                                        notification.address()).map(claimed::signedWith)
                                : Uni.createFrom().item(claimed));
    }

    private Claimed claimed(Notification notification, ActionRow action, List<String> approved,
            TenantDeciders.Known rules) {
        if (approved.contains(notification.recipient())) {
            return Claimed.dropped(notification, action, "the person approved it already");
        }
        if (!channelOn(notification.channel())) {
            return Claimed.dropped(notification, action, notification.channel() + " notifications are off");
        }
        return rules.of(action).stream()
                .filter(member -> member.userId().equals(notification.recipient())
                        && stillChosen(member, notification))
                .findFirst()
                .map(member -> new Claimed(notification, action, member, null, null))
                .orElseGet(() -> Claimed.dropped(notification, action, "the person no longer may decide it, or"
                        + " wants no " + notification.channel() + " message at this address"));
    }

    private boolean channelOn(String channel) {
        return switch (channel) {
            case Notification.EMAIL -> config.email();
            case Notification.WEBHOOK -> config.webhook();
            case Notification.SECOND_DEVICE -> secondDevice.enabled();
            default -> false;
        };
    }

    /** Whether {@code member} still wants this notification's channel, at its address. */
    private static boolean stillChosen(Member member, Notification notification) {
        return switch (notification.channel()) {
            case Notification.EMAIL -> member.notifyEmail() && notification.address().equals(member.email());
            case Notification.WEBHOOK -> member.notifyWebhook()
                    && notification.address().equals(member.webhookUrl());
            case Notification.SECOND_DEVICE -> member.notifySecondDevice()
                    && notification.address().equals(member.username());
            default -> false;
        };
    }

    /**
     * Starts the request at the identity provider and records it. One the provider refuses for good (an unknown person)
     * is recorded ({@code refused}) and never tried again; a failure is tried again after the lease, as a send is.
     */
    private Uni<Integer> startOnSecondDevice(Actor actor, Claimed claimed) {
        Notification notification = claimed.notification();
        return deliver(actor, notification,
                () -> secondDevice.start(actor, notification.id(), claimed.action(), notification.recipient(),
                        notification.address()).ifNoItem().after(sendTimeout()).fail(),
                failure -> failure instanceof SecondDeviceStarter.Refused
                        ? failure.getMessage()
                        : failure.getClass().getSimpleName() + ": " + failure.getMessage(),
                SecondDeviceStarter.Refused.class::isInstance);
    }

    private Uni<Void> sendEmail(Claimed claimed) {
        Notification notification = claimed.notification();
        GateScope scope = gate.openForNotification(notification.actionId(), notification.tenantId(),
                notification.address());
        return Uni.createFrom().deferred(() -> scope.send(WaitingMail.of(notification, notice(claimed), config.from())))
                .ifNoItem().after(sendTimeout()).fail()
                .eventually(scope::close);
    }

    /**
     * Posts a webhook through the gate, which refuses an origin not on the tenant's allow-list or a host resolving to a
     * private address: that is recorded ({@code refused}) and never tried again. A failure is recorded and logged by
     * its kind only (an answer's status, a timeout), never the URL's path, which may hold a credential.
     */
    private Uni<Integer> postWebhook(Actor actor, Claimed claimed) {
        Notification notification = claimed.notification();
        URI url;
        try {
            url = new URI(notification.address());
        } catch (URISyntaxException e) {
            return record(actor, notification, "refused", "the webhook URL is not a URL");
        }
        Duration timeout = min(config.webhookTimeout(), sendTimeout());
        return gate.openForWebhook(notification.actionId(), notification.tenantId(), url)
                .flatMap(scope -> deliver(actor, notification, () -> post(scope, claimed, timeout),
                        WebhookFailure::describe, failure -> false))
                // Only the gate fails with it: deliver records its own failures.
                .onFailure(RefusedDestination.class)
                .recoverWithUni(refused -> record(actor, notification, "refused", refused.getMessage()));
    }

    private Uni<Void> post(GateScope scope, Claimed claimed, Duration timeout) {
        Notification notification = claimed.notification();
        WaitingWebhook message = WaitingWebhook.of(notification, notice(claimed), claimed.member().webhookFormat(),
                claimed.secret(), Instant.now());
        return Uni.createFrom().deferred(() -> scope.http(WebhookEndpoint.class, timeout)
                .post(notification.address(), message.id(), message.timestamp(), message.signature(), message.body()))
                .ifNoItem().after(timeout).fail()
                .eventually(scope::close)
                .map(response -> {
                    if (response.getStatus() / 100 != 2) {
                        throw new WebhookFailure(response.getStatus());
                    }
                    return null;
                });
    }

    private WaitingNotice notice(Claimed claimed) {
        return WaitingNotice.of(claimed.notification(), claimed.action(), config.decisionPageUrl().orElseThrow());
    }

    /**
     * Sends through {@code send} and records the outcome for this claim, a failure as {@code describe} tells it (in the
     * log and the row), one that is {@code refusedForGood} as {@code refused}, never tried again; 1 if its send was
     * recorded.
     */
    private Uni<Integer> deliver(Actor actor, Notification notification, Supplier<Uni<?>> send,
            Function<Throwable, String> describe, Predicate<Throwable> refusedForGood) {
        return Uni.createFrom().deferred(send)
                .map(ignored -> true)
                .onFailure().recoverWithUni(failure -> {
                    boolean refused = refusedForGood.test(failure);
                    boolean last = notification.attempts() >= config.attempts();
                    LOG.warnf("Notification %s of action %s (tenant %s) not sent, attempt %d%s: %s",
                            notification.id(), notification.actionId(), notification.tenantId(),
                            notification.attempts(), refused ? ", refused" : last ? ", given up" : "",
                            describe.apply(failure));
                    return record(actor, notification, refused ? "refused" : last ? "failed" : null,
                            describe.apply(failure))
                            .map(ignored -> false);
                })
                .flatMap(sent -> !sent
                        ? Uni.createFrom().item(0)
                        : transactions.run(actor, sql -> notifications.sent(sql, notification))
                                .map(recorded -> recorded ? 1 : 0)
                                .onFailure().recoverWithItem(failure -> {
                                    LOG.warnf("Notification %s was sent, but recording it failed; it is sent again"
                                            + " after its lease, with the same Message-ID: %s", notification.id(),
                                            failure.toString());
                                    return 0;
                                }));
    }

    /** How long a send may take before it is abandoned: half the lease, at most five minutes. */
    private Duration sendTimeout() {
        return min(config.lease().dividedBy(2), MAX_SEND);
    }

    private static Duration min(Duration one, Duration other) {
        return one.compareTo(other) < 0 ? one : other;
    }

    private Uni<Integer> record(Actor actor, Notification notification, String finalState, String detail) {
        return transactions.run(actor, sql -> notifications.failed(sql, notification, finalState, detail))
                .replaceWith(0);
    }
}
