package dev.countersign.executor.notification;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.Tier;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.background.SerialRuns;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.members.Member;
import dev.countersign.executor.members.TenantDeciders;
import dev.countersign.executor.policy.TenantPolicyRepository;
import dev.countersign.executor.seconddevice.SecondDeviceStarter;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Works out who to tell of each action that waits for a person: the requests the database wrote with every action
 * stored as proposed (R__notifications.sql) become one notification per person who may decide it
 * ({@link TenantDeciders}) and channel that person chose, in one transaction of the action's tenant that also deletes
 * the requests (an e-mail to a verified address, a webhook message to the URL the person named, a request on their
 * second device for a HIGH action or one of a kind the tenant's policy names, by their username at the identity
 * provider). Requests are locked with SKIP LOCKED there, so each is planned once, whichever instance takes it; a
 * notification already planned for the same person, action, channel and purpose is not planned again. An action no
 * longer proposed (applied on arrival, decided, expired) tells nobody. With every channel off, requests are only
 * deleted.
 * <p>
 * Reminders: once per action, {@link NotificationsConfig#remindBefore()} before its window closes, a reminder request
 * is written the same way (its people worked out again then, so one who approved meanwhile, or lost the right, is not
 * reminded).
 * <p>
 * Each notification is due {@link NotificationsConfig#delay()} after it is planned: an action decided within that time
 * (a person confirming in the chat at once) tells nobody ({@link NotificationSender} drops it).
 * <p>
 * Limit: the people are those of {@code tenant_members} when the request is planned; one who signs in for the first
 * time later is not told of actions staged before.
 */
@ApplicationScoped
public class NotificationPlanner {

    private static final Logger LOG = Logger.getLogger(NotificationPlanner.class);
    static final String CHANNEL = "notify";

    private final Pool pool;
    private final TenantTransactions transactions;
    private final NotificationRepository notifications;
    private final ActionRepository actions;
    private final TenantDeciders deciders;
    private final NotificationsConfig config;
    private final NotificationSender sender;
    private final SecondDeviceStarter secondDevice;
    private final TenantPolicyRepository policies;
    private final SerialRuns runs = new SerialRuns("Planning notifications", this::runAndWake);

    public NotificationPlanner(Pool pool, TenantTransactions transactions, NotificationRepository notifications,
            ActionRepository actions, TenantDeciders deciders, NotificationsConfig config,
            NotificationSender sender, SecondDeviceStarter secondDevice, TenantPolicyRepository policies) {
        this.policies = policies;
        this.secondDevice = secondDevice;
        this.pool = pool;
        this.transactions = transactions;
        this.notifications = notifications;
        this.actions = actions;
        this.deciders = deciders;
        this.config = config;
        this.sender = sender;
    }

    @Scheduled(identity = "notification-planner", every = "${countersign.notifications.poll-interval}", skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void poll() {
        runs.request();
    }

    /** A run; again at once while it found a whole batch for some tenant. Wakes the sender when it planned any. */
    private Uni<Boolean> runAndWake() {
        return runOnce().map(run -> {
            if (run.planned() > 0) {
                sender.wakeUp();
            }
            return run.fullBatch();
        });
    }

    /** What one run did: notifications planned, and whether some tenant had at least a whole batch of requests. */
    record Run(int planned, boolean fullBatch) {
    }

    /** One run over each tenant's due requests (a batch each): the notifications planned. */
    public Uni<Integer> plan() {
        return runOnce().map(Run::planned);
    }

    /**
     * One run: the reminders that came due are requested (R__notifications.sql), then, for each tenant with requests
     * due, a batch of them is planned, in a transaction of that tenant.
     */
    Uni<Run> runOnce() {
        return requestReminders().flatMap(ignored -> pool
                .preparedQuery("SELECT tenant_id FROM notification_tenants_due($1)")
                .execute(Tuple.of(config.batch())))
                .flatMap(rows -> Multi.createFrom().iterable(rows).map(row -> row.getString("tenant_id"))
                        .onItem().transformToUniAndConcatenate(tenantId -> transactions
                                .run(new Actor(tenantId, "system", CHANNEL), sql -> planTenant(sql, tenantId))
                                // One tenant's failure (a row another transaction holds too long) stops no other.
                                .onFailure().recoverWithItem(failure -> {
                                    LOG.warnf("Planning notifications of tenant %s failed, will retry: %s", tenantId,
                                            failure.toString());
                                    return new Run(0, false);
                                }))
                        .collect().asList()
                        .map(runs -> new Run(runs.stream().mapToInt(Run::planned).sum(),
                                runs.stream().anyMatch(Run::fullBatch))));
    }

    /** Writes a reminder request for each action whose reminder came due (a batch); none with reminders off. */
    private Uni<Void> requestReminders() {
        if (config.remindBefore().isZero() || !config.email() && !config.webhook()) {
            return Uni.createFrom().voidItem();
        }
        return pool.preparedQuery("SELECT notification_reminders_due($1 * interval '1 millisecond', $2)")
                .execute(Tuple.of(config.remindBefore().toMillis(), config.batch()))
                .replaceWithVoid();
    }

    private Uni<Run> planTenant(SqlClient sql, String tenantId) {
        return notifications.lockDueRequests(sql, tenantId, config.batch()).flatMap(requests -> {
            boolean full = requests.size() >= config.batch();
            if (requests.isEmpty()) {
                return Uni.createFrom().item(new Run(0, false));
            }
            if (!config.email() && !config.webhook() && !secondDevice.enabled()) {
                return notifications.done(sql, tenantId, requests).map(ignored -> new Run(0, full));
            }
            List<UUID> ids = requests.stream().map(NotificationRepository.Request::actionId).distinct().toList();
            return deciders.read(sql, tenantId)
                    .flatMap(known -> policies.secondDeviceKinds(sql, tenantId)
                            .flatMap(kinds -> actions.find(sql, ids, tenantId)
                                    .map(found -> planned(requests, found, known, kinds))))
                    .call(planned -> notifications.plan(sql, planned, config.delay()))
                    .call(planned -> notifications.done(sql, tenantId, requests))
                    .map(planned -> new Run(planned.size(), full));
        });
    }

    private List<Notification> planned(List<NotificationRepository.Request> requests, Map<UUID, ActionRow> found,
            TenantDeciders.Known known, List<String> secondDeviceKinds) {
        return requests.stream()
                .flatMap(request -> planned(found.get(request.actionId()), request.purpose(), known,
                        secondDeviceKinds).stream())
                .collect(Collectors.toList());
    }

    /**
     * For each person who may decide {@code action}: an e-mail if they have a verified address and want e-mail, a
     * webhook message if they named a webhook and want those, a second-device request for a HIGH action or one of a
     * kind the tenant's policy names if they want those (once, never a reminder); each only while its channel is on;
     * none for an action no longer waiting.
     */
    private List<Notification> planned(ActionRow action, String purpose, TenantDeciders.Known known,
            List<String> secondDeviceKinds) {
        if (action == null || action.status() != ActionStatus.PROPOSED) {
            return List.of();
        }
        List<Notification> planned = new ArrayList<>();
        for (Member member : known.of(action)) {
            if (config.email() && member.email() != null && member.notifyEmail()) {
                planned.add(new Notification(UUID.randomUUID(), action.tenantId(), action.id(), member.userId(),
                        Notification.EMAIL, purpose, member.email(), 0));
            }
            if (config.webhook() && member.webhookUrl() != null && member.notifyWebhook()) {
                planned.add(new Notification(UUID.randomUUID(), action.tenantId(), action.id(), member.userId(),
                        Notification.WEBHOOK, purpose, member.webhookUrl(), 0));
            }
            if (secondDevice.enabled() && member.notifySecondDevice() && member.username() != null
                    && (action.tier() == Tier.HIGH || secondDeviceKinds.contains(action.kind()))
                    && Notification.WAITING.equals(purpose)) {
                planned.add(new Notification(UUID.randomUUID(), action.tenantId(), action.id(), member.userId(),
                        Notification.SECOND_DEVICE, purpose, member.username(), 0));
            }
        }
        return planned;
    }
}
