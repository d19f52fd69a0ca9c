package dev.countersign.executor.notification;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.external.egress.ExternalGate;
import dev.countersign.executor.external.egress.GateScope;
import dev.countersign.executor.members.Deciders;
import dev.countersign.executor.members.TenantDeciders;
import dev.countersign.executor.policy.ApprovalRepository;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
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
 * wants e-mail at that address; otherwise it is {@code dropped}. Nothing here runs in a decision's transaction or holds
 * a lock while a message is sent: a slow or unreachable mail server delays notifications only.
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
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean again = new AtomicBoolean();

    public NotificationSender(Pool pool, TenantTransactions transactions, NotificationRepository notifications,
            ActionRepository actions, ApprovalRepository approvals, ExternalGate gate, TenantDeciders deciders,
            NotificationsConfig config) {
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
        if (config.email() && config.decisionPageUrl().filter(WaitingMail::isPageOrigin).isEmpty()) {
            throw new IllegalStateException("NOTIFY_EMAIL=true needs DECISION_PAGE_URL, the decision page's origin"
                    + " people reach, an absolute http(s) URL such as https://decide.example.com"
                    + " (countersign.notifications.decision-page-url): every e-mail links there");
        }
    }

    @Scheduled(identity = "notification-sender", every = "${countersign.notifications.poll-interval}", skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void poll() {
        wakeUp();
    }

    /** Asks for a run soon; runs never overlap within an instance, and a request during a run causes another. */
    public void wakeUp() {
        again.set(true);
        if (running.compareAndSet(false, true)) {
            Infrastructure.getDefaultExecutor().execute(this::drain);
        }
    }

    private void drain() {
        again.set(false);
        runOnce().subscribe().with(due -> {
            if (due >= config.batch()) {
                again.set(true);
            }
            finish();
        }, failure -> {
            LOG.warnf("Sending notifications failed, will retry: %s", failure.toString());
            finish();
        });
    }

    private void finish() {
        running.set(false);
        if (again.get() && running.compareAndSet(false, true)) {
            Infrastructure.getDefaultExecutor().execute(this::drain);
        }
    }

    /** One run over at most {@code batch} due notifications: how many were due. */
    private Uni<Integer> runOnce() {
        if (!config.email()) {
            // Off: what is pending waits (and is dropped if, once on again, it is no longer wanted).
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

    /** A claimed notification, its action, and why it is no longer to be sent (null: send it). */
    private record Claimed(Notification notification, ActionRow action, String dropReason) {
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
                    return deliver(actor, claimed.notification(), claimed.action());
                });
    }

    private Uni<Claimed> stillWanted(SqlClient sql, Notification notification, TenantDeciders.Known rules) {
        return actions.find(sql, notification.actionId(), notification.tenantId())
                .flatMap(action -> action == null || action.status() != ActionStatus.PROPOSED
                        ? Uni.createFrom().item(new Claimed(notification, action,
                                "the action no longer waits for a person"))
                        : approvals.approvers(sql, action.id(), action.tenantId()).map(approved -> new Claimed(
                                notification, action, dropReason(notification, action, approved, rules))));
    }

    private static String dropReason(Notification notification, ActionRow action, List<String> approved,
            TenantDeciders.Known rules) {
        if (approved.contains(notification.recipient())) {
            return "the person approved it already";
        }
        boolean wanted = rules.of(action).stream()
                .anyMatch(member -> member.userId().equals(notification.recipient()) && member.notifyEmail()
                        && notification.address().equals(member.email()));
        return wanted ? null : "the person no longer may decide it, or wants no e-mail at this address";
    }

    private Uni<Integer> deliver(Actor actor, Notification notification, ActionRow action) {
        GateScope scope = gate.openForNotification(notification.actionId(), notification.tenantId(),
                notification.address());
        return Uni.createFrom().deferred(() -> scope.send(WaitingMail.of(notification, action,
                config.decisionPageUrl().orElseThrow(), config.from())))
                .ifNoItem().after(sendTimeout()).fail()
                .eventually(scope::close)
                .map(ignored -> true)
                .onFailure().recoverWithUni(failure -> {
                    boolean last = notification.attempts() >= config.attempts();
                    LOG.warnf("Notification %s of action %s (tenant %s) not sent, attempt %d%s: %s",
                            notification.id(), notification.actionId(), notification.tenantId(),
                            notification.attempts(), last ? ", given up" : "", failure.toString());
                    return record(actor, notification, last ? "failed" : null, failure.toString())
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
        Duration half = config.lease().dividedBy(2);
        return half.compareTo(MAX_SEND) < 0 ? half : MAX_SEND;
    }

    private Uni<Integer> record(Actor actor, Notification notification, String finalState, String detail) {
        return transactions.run(actor, sql -> notifications.failed(sql, notification, finalState, detail))
                .replaceWith(0);
    }
}
