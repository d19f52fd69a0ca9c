package dev.countersign.executor.seconddevice;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.executor.access.Principal;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.DecisionOutcome;
import dev.countersign.executor.background.SerialRuns;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.decision.DecisionRequest;
import dev.countersign.executor.decision.DecisionService;
import dev.countersign.executor.decision.SingleUseApprovals;
import dev.countersign.executor.members.MemberRepository;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Polls the identity provider for the answer to each pending second-device request, on whichever instance claims it
 * first (state in the database: a restart, or another instance, takes up where a poller stopped), and acts on it:
 * <ul>
 * <li>an approval: its token is checked against the request ({@link ApprovalTokens}), then the action is confirmed
 * through {@link DecisionService}, as the person the token names, on channel {@code ciba}, for the request's parameters
 * hash: the decision rule and the tenant's approval policy (k of n) decide whether it counts, as on every channel; the
 * request's id is the decision's event id and the token's id is spent in the same transaction, so the answer decides
 * once;</li>
 * <li>a denial: the action is cancelled in the person's name (the rule lets whoever may confirm cancel);</li>
 * <li>an expiry: the request ends, the action is left as it was;</li>
 * <li>pending: polled again after the provider's interval (longer after {@code slow_down});</li>
 * <li>an action no longer waiting: the request ends without a poll.</li>
 * </ul>
 * Limits: the provider issues an approval's token once. If the decision then fails twice in a row (the database gone),
 * the approval is lost: the request ends saying so if its record can be written, or stays held until the hold ends and
 * then ends at its next poll as {@code invalid_grant}; the action waits, and the person decides again elsewhere. A
 * poller that dies between the provider's answer and its record leaves the request the same way.
 */
@ApplicationScoped
public class SecondDevicePoller {

    private static final Logger LOG = Logger.getLogger(SecondDevicePoller.class);
    private static final int MAX_INTERVAL = 60;
    /** How long past its expiry a request the provider still calls pending (or never answers) is polled. */
    private static final Duration EXPIRY_GRACE = Duration.ofMinutes(1);
    /** How long an answer being acted on keeps other pollers off its request. */
    private static final Duration ANSWERING = Duration.ofMinutes(10);

    private final Pool pool;
    private final TenantTransactions transactions;
    private final SecondDeviceRepository requests;
    private final ActionRepository actions;
    private final MemberRepository members;
    private final Backchannel backchannel;
    private final ApprovalTokens tokens;
    private final DecisionService decisions;
    private final SecondDeviceConfig config;
    private final SerialRuns runs = new SerialRuns("Polling second-device requests", this::runOnce);

    public SecondDevicePoller(Pool pool, TenantTransactions transactions, SecondDeviceRepository requests,
            ActionRepository actions, MemberRepository members, Backchannel backchannel, ApprovalTokens tokens,
            DecisionService decisions, SecondDeviceConfig config) {
        this.pool = pool;
        this.transactions = transactions;
        this.requests = requests;
        this.actions = actions;
        this.members = members;
        this.backchannel = backchannel;
        this.tokens = tokens;
        this.decisions = decisions;
        this.config = config;
    }

    @Scheduled(identity = "second-device-poller", every = "${countersign.second-device.poll-interval}", skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void poll() {
        if (config.enabled()) {
            runs.request();
        }
    }

    /** One run over at most a batch of due requests; true (run again) if the batch was full. */
    private Uni<Boolean> runOnce() {
        return pool.preparedQuery("SELECT tenant_id, notification_id FROM second_device_requests_due($1)")
                .execute(Tuple.of(config.batch()))
                .flatMap(rows -> Multi.createFrom().iterable(rows)
                        .onItem().transformToUniAndConcatenate(row -> pollOne(row.getString("tenant_id"),
                                row.getUUID("notification_id")))
                        .collect().with(Collectors.counting())
                        .map(count -> count >= config.batch()));
    }

    private Uni<Void> pollOne(String tenantId, UUID id) {
        Actor actor = new Actor(tenantId, "system", DecisionRequest.SECOND_DEVICE);
        return transactions.run(actor, sql -> requests.claim(sql, tenantId, id, config.lease())
                .flatMap(request -> request == null
                        ? Uni.createFrom().<Claimed>nullItem()
                        : actions.find(sql, request.actionId(), tenantId)
                                .map(action -> new Claimed(request,
                                        action != null && action.status() == ActionStatus.PROPOSED))))
                .flatMap(claimed -> {
                    if (claimed == null) {
                        return Uni.createFrom().voidItem();
                    }
                    if (!claimed.actionWaits()) {
                        return end(actor, claimed.request(), SecondDeviceRequest.ENDED,
                                "the action no longer waits for a person");
                    }
                    if (claimed.request().expiresAt().plus(EXPIRY_GRACE).isBefore(Instant.now())) {
                        return end(actor, claimed.request(), SecondDeviceRequest.EXPIRED,
                                "the identity provider answered nothing by the request's expiry; the action is left as"
                                        + " it was");
                    }
                    // Only a failed poll is polled again soon; once the provider answered, a failure acting on the
                    // answer leaves the request held (the provider will not answer the same again).
                    return backchannel.poll(claimed.request().authReqId())
                            .map(java.util.Optional::of)
                            .onFailure().recoverWithUni(failure -> {
                                LOG.warnf("Polling second-device request %s of action %s (tenant %s) failed, will"
                                        + " retry: %s", id, claimed.request().actionId(), tenantId,
                                        failure.getClass().getSimpleName());
                                return transactions.run(actor, sql -> requests.later(sql, claimed.request(),
                                        claimed.request().pollInterval()))
                                        .replaceWith(java.util.Optional.<Backchannel.Polled>empty());
                            })
                            .flatMap(polled -> polled.isEmpty()
                                    ? Uni.createFrom().voidItem()
                                    : answer(actor, claimed.request(), polled.get()));
                })
                .onFailure().recoverWithItem(failure -> {
                    LOG.warnf("Second-device request %s (tenant %s) not polled, will retry: %s", id, tenantId,
                            failure.toString());
                    return null;
                });
    }

    private record Claimed(SecondDeviceRequest request, boolean actionWaits) {
    }

    private Uni<Void> answer(Actor actor, SecondDeviceRequest request, Backchannel.Polled polled) {
        if (polled instanceof Backchannel.Approved approved) {
            // The provider issued its token once: no other poller may ask again while this one acts on it. The hold
            // failing loses nothing: the approval is acted on all the same.
            return hold(actor, request).flatMap(held -> approve(actor, request, approved.accessToken()));
        }
        String error = ((Backchannel.Answered) polled).error();
        return switch (error) {
            case Backchannel.Answered.PENDING -> transactions.run(actor,
                    sql -> requests.later(sql, request, request.pollInterval()));
            case Backchannel.Answered.SLOW_DOWN -> transactions.run(actor,
                    sql -> requests.later(sql, request, Math.min(MAX_INTERVAL, request.pollInterval() + 5)));
            case Backchannel.Answered.DENIED -> hold(actor, request).flatMap(held -> deny(actor, request));
            case Backchannel.Answered.EXPIRED -> end(actor, request, SecondDeviceRequest.EXPIRED,
                    "the request expired unanswered; the action is left as it was");
            default -> end(actor, request, SecondDeviceRequest.ENDED, "the identity provider answered " + error);
        };
    }

    private Uni<Void> hold(Actor actor, SecondDeviceRequest request) {
        return transactions.run(actor, sql -> requests.hold(sql, request, ANSWERING)).onFailure()
                .recoverWithNull();
    }

    private Uni<Void> approve(Actor actor, SecondDeviceRequest request, String accessToken) {
        return tokens.check(accessToken, request).flatMap(checked -> {
            if (checked instanceof ApprovalTokens.Refused refused) {
                return end(actor, request, SecondDeviceRequest.ENDED, "the approval was not taken: " + refused.why());
            }
            ApprovalTokens.Approver approver = (ApprovalTokens.Approver) checked;
            DecisionRequest decision = DecisionRequest.bySecondDevice(request.actionId(), request.tenantId(),
                    approver.principal(), request.notificationId(), request.paramsHash(),
                    new DecisionRequest.ApproverToken(approver.tokenId(), approver.expiresAt()));
            return decided(actor, request, SecondDeviceRequest.APPROVED, decisions.confirm(decision));
        });
    }

    /**
     * The person said no: the action is cancelled in their name, as the executor last saw them (a denial carries no
     * token, so the rule judges their groups as {@code tenant_members} holds them). The approval device sends a denial
     * only for a request the executor vouched for to the person signed in there, so the person is the one asked.
     */
    private Uni<Void> deny(Actor actor, SecondDeviceRequest request) {
        return transactions.run(actor, sql -> members.find(sql, request.tenantId(), request.userId()))
                .flatMap(member -> {
                    Principal person = member == null
                            ? Principal.person(request.userId(), false, false)
                            : Principal.person(request.userId(), member.approver(), member.admin());
                    DecisionRequest decision = DecisionRequest.bySecondDevice(request.actionId(),
                            request.tenantId(), person, request.notificationId(), request.paramsHash(), null);
                    return decided(actor, request, SecondDeviceRequest.DENIED, decisions.cancel(decision));
                });
    }

    /**
     * Records what {@code decision} came to. Tried once more on a failure (the request's event id makes a second try
     * after a commit decide nothing); an approval token used already is no failure to retry.
     */
    private Uni<Void> decided(Actor actor, SecondDeviceRequest request, String state, Uni<DecisionOutcome> decision) {
        return decision
                .onFailure(failure -> !(failure instanceof SingleUseApprovals.AlreadyUsed)).retry().atMost(1)
                .map(SecondDevicePoller::describe)
                .onFailure(SingleUseApprovals.AlreadyUsed.class)
                .recoverWithItem("refused: the approval's token was used already")
                .onFailure().recoverWithItem(failure -> {
                    LOG.warnf("The answer to second-device request %s of action %s (tenant %s) could not be"
                            + " recorded; the action waits for a person: %s", request.notificationId(),
                            request.actionId(), request.tenantId(), failure.toString());
                    return "not recorded: the decision failed (" + failure.getClass().getSimpleName() + ")";
                })
                .flatMap(outcome -> end(actor, request, state, outcome));
    }

    private Uni<Void> end(Actor actor, SecondDeviceRequest request, String state, String outcome) {
        return transactions.run(actor, sql -> requests.end(sql, request, state, outcome)).invoke(ended -> {
            if (ended) {
                LOG.infof("Second-device request %s of action %s (tenant %s, person %s) %s: %s",
                        request.notificationId(), request.actionId(), request.tenantId(), request.userId(), state,
                        outcome);
            }
        }).replaceWithVoid();
    }

    /** What a decision came to, as the request's outcome says it. */
    static String describe(DecisionOutcome outcome) {
        if (outcome instanceof DecisionOutcome.Executed || outcome instanceof DecisionOutcome.Claimed) {
            return "confirmed: the action ran";
        }
        if (outcome instanceof DecisionOutcome.AwaitingApprovals waiting) {
            return "approval recorded: %d of %d".formatted(waiting.approvers().size(), waiting.required());
        }
        if (outcome instanceof DecisionOutcome.Cancelled) {
            return "the action was cancelled";
        }
        if (outcome instanceof DecisionOutcome.Failed failed) {
            return "confirmed, but the write was refused: " + failed.code().code();
        }
        if (outcome instanceof DecisionOutcome.NeedsReview) {
            return "confirmed; the external call's outcome is unknown";
        }
        if (outcome instanceof DecisionOutcome.NotProposed notProposed) {
            return "nothing changed: the action is " + notProposed.action().status().wireName();
        }
        if (outcome instanceof DecisionOutcome.NotEntitled) {
            return "refused by the decision rule";
        }
        if (outcome instanceof DecisionOutcome.ApproverNotAllowed) {
            return "refused by the tenant's approval policy";
        }
        if (outcome instanceof DecisionOutcome.ParamsMismatch) {
            return "refused: other parameters";
        }
        if (outcome instanceof DecisionOutcome.AlreadyDecided) {
            return "nothing changed: this request had decided already";
        }
        return "nothing changed: no such action";
    }
}
