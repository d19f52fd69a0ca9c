package dev.countersign.executor.notification;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.api.ApprovalPolicy;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.members.Deciders;
import dev.countersign.executor.members.Member;
import dev.countersign.executor.members.MemberRepository;
import dev.countersign.executor.members.MembersConfig;
import dev.countersign.executor.policy.TenantPolicyRepository;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Works out who to tell of each action that waits for a person: the requests the database wrote with every action
 * stored as proposed (R__notifications.sql) become one notification per person who may decide it ({@link Deciders}) and
 * channel that person chose, in one transaction of the action's tenant that also deletes the request. So a request is
 * planned once, whichever instance takes it; a notification already planned for the same person, action, channel and
 * purpose is not planned again. An action no longer proposed (applied on arrival, decided, expired) tells nobody.
 * <p>
 * Limit: the people are those of {@code tenant_members} when the request is planned, normally within a second of the
 * staging; one who signs in for the first time later is not told of actions staged before.
 */
@ApplicationScoped
public class NotificationPlanner {

    private static final Logger LOG = Logger.getLogger(NotificationPlanner.class);
    static final String CHANNEL = "notify";

    private final Pool pool;
    private final TenantTransactions transactions;
    private final NotificationRepository notifications;
    private final ActionRepository actions;
    private final TenantPolicyRepository policies;
    private final MemberRepository members;
    private final MembersConfig membersConfig;
    private final NotificationsConfig config;
    private final NotificationSender sender;
    private final AtomicBoolean running = new AtomicBoolean();

    public NotificationPlanner(Pool pool, TenantTransactions transactions, NotificationRepository notifications,
            ActionRepository actions, TenantPolicyRepository policies, MemberRepository members,
            MembersConfig membersConfig, NotificationsConfig config, NotificationSender sender) {
        this.pool = pool;
        this.transactions = transactions;
        this.notifications = notifications;
        this.actions = actions;
        this.policies = policies;
        this.members = members;
        this.membersConfig = membersConfig;
        this.config = config;
        this.sender = sender;
    }

    @Scheduled(identity = "notification-planner", every = "${countersign.notifications.poll-interval}", skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void poll() {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        drain().onTermination().invoke(() -> running.set(false))
                .subscribe().with(planned -> {
                    if (planned > 0) {
                        sender.wakeUp();
                    }
                }, failure -> LOG.warnf("Planning notifications failed, will retry: %s", failure.toString()));
    }

    /** Runs until a run finds less than a whole batch: the notifications planned. */
    private Uni<Integer> drain() {
        return runOnce().flatMap(run -> run.requests() < config.batch()
                ? Uni.createFrom().item(run.planned())
                : drain().map(more -> more + run.planned()));
    }

    private record Run(int requests, int planned) {
    }

    /** One run over at most {@code batch} due requests, one transaction per tenant; the notifications planned. */
    public Uni<Integer> plan() {
        return runOnce().map(Run::planned);
    }

    private Uni<Run> runOnce() {
        return pool.preparedQuery("SELECT tenant_id, action_id FROM notification_requests_due($1)")
                .execute(Tuple.of(config.batch()))
                .flatMap(rows -> {
                    Map<String, List<UUID>> byTenant = new LinkedHashMap<>();
                    for (Row row : rows) {
                        byTenant.computeIfAbsent(row.getString("tenant_id"), tenant -> new ArrayList<>())
                                .add(row.getUUID("action_id"));
                    }
                    return Multi.createFrom().iterable(byTenant.entrySet())
                            .onItem().transformToUniAndConcatenate(due -> transactions.run(
                                    new Actor(due.getKey(), "system", CHANNEL),
                                    sql -> planTenant(sql, due.getKey(), due.getValue())))
                            .collect().with(java.util.stream.Collectors.summingInt(Integer::intValue))
                            .map(planned -> new Run(rows.size(), planned));
                });
    }

    private Uni<Integer> planTenant(SqlClient sql, String tenantId, List<UUID> actionIds) {
        Instant seenSince = Instant.now().minus(membersConfig.maxAge());
        return notifications.lockRequests(sql, tenantId, actionIds).flatMap(requests -> {
            if (requests.isEmpty()) {
                return Uni.createFrom().item(0);
            }
            List<UUID> ids = requests.stream().map(NotificationRepository.Request::actionId).distinct().toList();
            return policies.approvals(sql, tenantId)
                    .flatMap(policy -> members.seenSince(sql, tenantId, seenSince)
                            .flatMap(seen -> actions.findAll(sql, ids, tenantId)
                                    .map(found -> requests.stream().flatMap(request -> planned(
                                            found.get(request.actionId()), request.purpose(), policy, seen).stream())
                                            .toList())))
                    .call(planned -> notifications.plan(sql, planned))
                    .call(planned -> notifications.done(sql, tenantId, requests))
                    .map(List::size);
        });
    }

    /**
     * One e-mail per person who may decide {@code action} and has a verified address and wants e-mail, if e-mail is on;
     * none for an action no longer waiting.
     */
    private List<Notification> planned(ActionRow action, String purpose, ApprovalPolicy policy, List<Member> seen) {
        if (action == null || action.status() != ActionStatus.PROPOSED || !config.email()) {
            return List.of();
        }
        return Deciders.of(action, policy, seen).stream()
                .filter(member -> member.email() != null && member.notifyEmail())
                .map(member -> new Notification(UUID.randomUUID(), action.tenantId(), action.id(), member.userId(),
                        Notification.EMAIL, purpose, member.email(), 0))
                .toList();
    }
}
