package dev.countersign.executor.notification;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.external.egress.ExternalGate;
import dev.countersign.executor.external.egress.GateScope;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Sends planned notifications: claim, send, record, each claim and each record its own committed transaction.
 * <p>
 * Delivery is at least once, and says so:
 * <ul>
 * <li>a sender that dies after its claim and before the send leaves the notification pending; another claims it once
 * the lease ({@link NotificationsConfig#lease()}) ends, and the person gets one message;</li>
 * <li>one that dies after the mail server accepted the message and before the send was recorded leaves it pending too:
 * it is sent again after the lease, with the same {@code Message-ID}, one duplicate per such death;</li>
 * <li>a send that fails is tried again after the lease, up to {@link NotificationsConfig#attempts()} claims, then given
 * up ({@code failed}, with the reason).</li>
 * </ul>
 * Nothing here runs in a decision's transaction or holds a lock while a message is sent: a slow or unreachable mail
 * server delays notifications only.
 */
@ApplicationScoped
public class NotificationSender {

    private static final Logger LOG = Logger.getLogger(NotificationSender.class);

    private final Pool pool;
    private final TenantTransactions transactions;
    private final NotificationRepository notifications;
    private final ActionRepository actions;
    private final ExternalGate gate;
    private final NotificationsConfig config;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean again = new AtomicBoolean();

    public NotificationSender(Pool pool, TenantTransactions transactions, NotificationRepository notifications,
            ActionRepository actions, ExternalGate gate, NotificationsConfig config) {
        this.pool = pool;
        this.transactions = transactions;
        this.notifications = notifications;
        this.actions = actions;
        this.gate = gate;
        this.config = config;
    }

    /** Refuses to start with e-mail on and no decision page to link to: every notification would fail. */
    void onStart(@Observes StartupEvent started) {
        if (config.email() && config.decisionPageUrl().isEmpty()) {
            throw new IllegalStateException("NOTIFY_EMAIL=true needs DECISION_PAGE_URL, the decision page's origin"
                    + " people reach (countersign.notifications.decision-page-url): every e-mail links there");
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
        runOnce().subscribe().with(run -> {
            if (run.due() >= config.batch()) {
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

    private record Run(int due, int sent) {
    }

    /** One run over at most {@code batch} due notifications; the number whose send was recorded. */
    public Uni<Integer> sendDue() {
        return runOnce().map(Run::sent);
    }

    private Uni<Run> runOnce() {
        return pool.preparedQuery("SELECT tenant_id, id FROM notifications_due($1)")
                .execute(Tuple.of(config.batch()))
                .flatMap(rows -> {
                    Map<String, List<UUID>> byTenant = new LinkedHashMap<>();
                    for (Row row : rows) {
                        byTenant.computeIfAbsent(row.getString("tenant_id"), tenant -> new ArrayList<>())
                                .add(row.getUUID("id"));
                    }
                    return Multi.createFrom().iterable(byTenant.entrySet())
                            .onItem().transformToUniAndConcatenate(due -> sendTenant(due.getKey(), due.getValue()))
                            .collect().with(java.util.stream.Collectors.summingInt(Integer::intValue))
                            .map(sent -> new Run(rows.size(), sent));
                });
    }

    private record Claimed(Notification notification, ActionRow action) {
    }

    private Uni<Integer> sendTenant(String tenantId, List<UUID> ids) {
        Actor actor = new Actor(tenantId, "system", NotificationPlanner.CHANNEL);
        return transactions.run(actor, sql -> notifications.claim(sql, tenantId, ids, config.lease())
                .flatMap(claimed -> claimed.isEmpty()
                        ? Uni.createFrom().item(List.<Claimed>of())
                        : actions.findAll(sql, claimed.stream().map(Notification::actionId).distinct().toList(),
                                tenantId)
                                .map(found -> claimed.stream()
                                        .map(notification -> new Claimed(notification,
                                                found.get(notification.actionId())))
                                        .toList())))
                .flatMap(claimed -> Multi.createFrom().iterable(claimed)
                        .onItem().transformToUniAndConcatenate(one -> send(actor, one))
                        .collect().with(java.util.stream.Collectors.summingInt(Integer::intValue)));
    }

    /** Sends one claimed notification and records the outcome; 1 if its send was recorded. */
    private Uni<Integer> send(Actor actor, Claimed claimed) {
        Notification notification = claimed.notification();
        if (claimed.action() == null) {
            return record(actor, notification, "failed", "the action is gone");
        }
        GateScope scope = gate.openForNotification(notification.actionId(), notification.tenantId());
        return Uni.createFrom().deferred(() -> scope.send(WaitingMail.of(notification, claimed.action(),
                config.decisionPageUrl().get(), config.from())))
                .ifNoItem().after(Duration.ofSeconds(30)).fail()
                .eventually(scope::close)
                .flatMap(ignored -> transactions.run(actor, sql -> notifications.sent(sql, notification.id())))
                .map(recorded -> recorded ? 1 : 0)
                .onFailure().recoverWithUni(failure -> {
                    boolean giveUp = notification.attempts() >= config.attempts();
                    LOG.warnf("Notification %s of action %s (tenant %s) not sent, attempt %d%s: %s",
                            notification.id(), notification.actionId(), notification.tenantId(),
                            notification.attempts(), giveUp ? ", given up" : "", failure.toString());
                    return record(actor, notification, giveUp ? "failed" : null, failure.toString());
                });
    }

    private Uni<Integer> record(Actor actor, Notification notification, String finalState, String detail) {
        return transactions.run(actor, sql -> notifications.failed(sql, notification.id(), finalState, detail))
                .replaceWith(0);
    }
}
