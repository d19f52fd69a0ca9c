package dev.countersign.executor.staging;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Identifiers;
import dev.countersign.contracts.Requesters;
import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.TierPolicy;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.contracts.events.ActionExecuted;
import dev.countersign.contracts.events.ActionProposed;
import dev.countersign.contracts.events.ActionRejected;
import dev.countersign.contracts.json.ConfirmTokens;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.ActionsConfig;
import dev.countersign.executor.action.NewAction;
import dev.countersign.executor.action.TargetSnapshot;
import dev.countersign.executor.db.ProcessedEvents;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.db.TransientFailures;
import dev.countersign.executor.execution.ActionExecution;
import dev.countersign.executor.execution.ExecutorRegistry;
import dev.countersign.executor.execution.Targets;
import dev.countersign.executor.lifecycle.ActionLifecycle;
import dev.countersign.executor.outbox.OutboxWriter;
import dev.countersign.executor.policy.AutoApply;
import dev.countersign.executor.policy.AutoApplyBudgets;
import dev.countersign.executor.policy.StagingPolicies;
import dev.countersign.executor.policy.TenantPolicyRepository;
import dev.countersign.executor.telemetry.ActionTelemetry;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * Turns an {@code ActionProposed} into a stored {@code proposed} action, or a rejection. It trusts nothing in the
 * event: the kind and parameters are validated again against the catalogue, the hash is recomputed, the tier is decided
 * here. One transaction records the event as processed, stores the action and writes the outcome to the outbox, so a
 * redelivered event does nothing and no outcome is published for work that was rolled back. An action whose tier lets
 * it apply on arrival ({@link AutoApply}) is confirmed and executed in that same transaction, if the agent marked the
 * proposing turn clean and the auto-apply budget has room ({@link AutoApplyBudgets}); otherwise it waits for a person
 * with the reason recorded on it.
 */
@ApplicationScoped
public class StagingService {

    static final String CONSUMER = "executor.proposals";
    private static final Logger LOG = Logger.getLogger(StagingService.class);
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");
    private static final String AUTO_APPLY_SAVEPOINT = "apply_on_arrival";
    /** Why a proposal whose application on arrival failed unexpectedly waits for a person. */
    static final String APPLY_FAILED = "applying it on arrival failed, so a person decides it";
    /** Why a proposal from a turn that read text its user did not write waits for a person. */
    static final String TAINTED = "the turn that proposed it read text its user did not write (another user's note,"
            + " an imported row, a mail or ticket), so a person confirms it";

    private final TenantTransactions transactions;
    private final ActionRepository actions;
    private final ProcessedEvents processed;
    private final OutboxWriter outbox;
    private final ActionsConfig config;
    private final TenantPolicyRepository policies;
    private final ExecutorRegistry executors;
    private final Targets targets;
    private final AutoApply autoApply;
    private final ActionExecution execution;
    private final ActionTelemetry telemetry;
    private final AutoApplyBudgets budgets;
    private final ActionLifecycle lifecycle;

    public StagingService(TenantTransactions transactions, ActionRepository actions, ProcessedEvents processed,
            OutboxWriter outbox, ActionsConfig config, TenantPolicyRepository policies, ExecutorRegistry executors,
            Targets targets, AutoApply autoApply, ActionExecution execution, ActionTelemetry telemetry,
            AutoApplyBudgets budgets, ActionLifecycle lifecycle) {
        this.lifecycle = lifecycle;
        this.budgets = budgets;
        this.telemetry = telemetry;
        this.autoApply = autoApply;
        this.execution = execution;
        this.targets = targets;
        this.policies = policies;
        this.executors = executors;
        this.transactions = transactions;
        this.actions = actions;
        this.processed = processed;
        this.outbox = outbox;
        this.config = config;
    }

    /** Completes when the outcome is committed; true if an outbox event was written (the relay should run). */
    public Uni<Boolean> stage(ActionProposed proposal) {
        return ActionTelemetry.withLogFields(proposal.tenantId(), proposal.actionId(),
                () -> transactions.run(actor(proposal), sql -> processed.onFirstDelivery(sql, proposal.eventId(),
                        CONSUMER, () -> decide(sql, proposal), false)));
    }

    /**
     * After a failure that will repeat (PostgreSQL refuses this proposal's data): record the proposal as processed and
     * rejected in a fresh transaction, so the user and the model learn it instead of waiting for an action that never
     * appears. If even that fails (a tenant id PostgreSQL cannot store is no one's tenant), the caller dead-letters the
     * record.
     */
    public Uni<Boolean> rejectUnstorable(ActionProposed proposal) {
        // No action is written, so no history names an actor; the event's user id may be what PostgreSQL refused.
        Actor tenantOnly = new Actor(proposal.tenantId(), "", TenantTransactions.AGENT);
        return transactions.run(tenantOnly, sql -> processed.onFirstDelivery(sql, proposal.eventId(), CONSUMER,
                () -> reject(sql, proposal, ErrorCode.VALIDATION_FAILED, "the proposal could not be stored"), false));
    }

    /** The proposal's tenant, and its requester acting through the agent. */
    private static Actor actor(ActionProposed proposal) {
        return new Actor(proposal.tenantId(), proposal.userId(), TenantTransactions.AGENT);
    }

    private Uni<Boolean> decide(SqlClient sql, ActionProposed proposal) {
        String envelopeProblem = envelopeProblem(proposal);
        if (envelopeProblem != null) {
            return reject(sql, proposal, ErrorCode.VALIDATION_FAILED, envelopeProblem);
        }
        // A copy of a staged action is settled before any other rule: a policy changed or a target gone since must not
        // publish a rejection under a live action's id.
        return actions.find(sql, proposal.actionId(), proposal.tenantId()).flatMap(existing -> existing != null
                ? settleCopy(sql, proposal, existing)
                : policies.forStaging(sql, proposal.tenantId()).flatMap(
                        policy -> policy.agentWrites() == AgentWritesPolicy.Mode.DISABLED
                                ? reject(sql, proposal, ErrorCode.AGENT_WRITES_DISABLED,
                                        "an administrator has switched agent writes off for this tenant")
                                : stageValid(sql, proposal, policy)));
    }

    private Uni<Boolean> stageValid(SqlClient sql, ActionProposed proposal, StagingPolicies policy) {
        ValidatedParams validated = ActionCatalogue.validate(proposal.kind(), proposal.params());
        if (!validated.isValid()) {
            return reject(sql, proposal, ErrorCode.VALIDATION_FAILED, validated.violationsText());
        }
        if (!executors.isExecutable(proposal.kind())) {
            return reject(sql, proposal, ErrorCode.KIND_NOT_SUPPORTED,
                    "this executor cannot carry out %s yet".formatted(proposal.kind()));
        }
        String paramsHash = validated.hash();
        if (!paramsHash.equals(proposal.paramsHash())) {
            return reject(sql, proposal, ErrorCode.PARAMS_MISMATCH,
                    "paramsHash does not match the canonical hash of the normalised parameters");
        }
        if (executors.externalFor(proposal.kind()).isPresent() && !policy.externalSends()) {
            return reject(sql, proposal, ErrorCode.EXTERNAL_SENDS_DISABLED,
                    "an administrator has switched off external sends (e-mail, tickets) for this tenant");
        }
        return stageTarget(sql, proposal, validated, policy.tiers(), policy.agentWrites());
    }

    private Uni<Boolean> stageTarget(SqlClient sql, ActionProposed proposal, ValidatedParams validated,
            TierPolicy tiers, AgentWritesPolicy.Mode agentWrites) {
        String paramsHash = validated.hash();
        return targets.refusal(sql, proposal.kind(), validated.normalised(), proposal.tenantId(),
                proposal.userId())
                .flatMap(refused -> refused != null
                        ? reject(sql, proposal, refused.code(), refused.getMessage())
                        : stageRead(sql, proposal, validated, tiers, agentWrites, paramsHash));
    }

    private Uni<Boolean> stageRead(SqlClient sql, ActionProposed proposal, ValidatedParams validated,
            TierPolicy tiers, AgentWritesPolicy.Mode agentWrites, String paramsHash) {
        return targets.read(sql, proposal.kind(), validated.normalised(), proposal.tenantId(), proposal.userId())
                .flatMap(target -> targets.owner(sql, proposal.kind(), validated.normalised(), proposal.tenantId(),
                        proposal.userId()).map(owner -> new Staged(target, owner)))
                .flatMap(staged -> {
                    Optional<TargetSnapshot> target = staged.target();
                    if (target.isEmpty() && targets.hasTarget(proposal.kind())) {
                        return reject(sql, proposal, ErrorCode.TARGET_NOT_FOUND,
                                targets.missing(proposal.kind(), validated.normalised()));
                    }
                    if (staged.owner() == null && targets.readsOwner(proposal.kind())) {
                        // A missing owner reads as the requester's own (Relation.of): never stage one.
                        return reject(sql, proposal, ErrorCode.TARGET_NOT_FOUND,
                                "the row this action writes does not exist in this tenant");
                    }
                    NewAction action = new NewAction(proposal.actionId(), proposal.tenantId(), proposal.userId(),
                            proposal.conversationId(), proposal.turnId(), proposal.kind(),
                            validated.definition().tierFor(validated.normalised(),
                                    target.map(TargetSnapshot::fields).orElse(null), tiers),
                            validated.normalised(), paramsHash, tokenHash(proposal), validated.summary(),
                            target.orElse(null), telemetry.currentTraceParent(), proposal.markedClean(),
                            staged.owner());
                    return store(sql, proposal, action, agentWrites);
                });
    }

    /** What staging read of the row an action writes: its snapshot (if it changes one) and its owner. */
    private record Staged(Optional<TargetSnapshot> target, String owner) {
    }

    private Uni<Boolean> store(SqlClient sql, ActionProposed proposal, NewAction action,
            AgentWritesPolicy.Mode agentWrites) {
        return actions.insertProposed(sql, action, ttl(proposal)).flatMap(stored -> {
            if (stored == null) {
                // Taken between the lookup and the insert (a copy on another partition), or another tenant's id.
                return actions.find(sql, proposal.actionId(), proposal.tenantId())
                        .flatMap(existing -> settleCopy(sql, proposal, existing));
            }
            return autoApply.reason(sql, stored, agentWrites).flatMap(reason -> {
                if (reason == null) {
                    return lifecycle.staged(sql, stored);
                }
                if (!proposal.markedClean()) {
                    return lifecycle.held(sql, stored, TAINTED);
                }
                return applyOnArrival(sql, stored, reason);
            }).replaceWith(true);
        });
    }

    /**
     * The action id is stored already ({@code existing}; null when it is another tenant's, which this tenant cannot
     * see). A second copy of the same proposal under a new event id is ignored: nothing is written or published,
     * whatever became of the first. The honest agent does not send one (a repeat in the turn is not re-sent, a re-send
     * keeps its event id, which {@link ProcessedEvents} drops); a buggy or compromised one, or a replay, might. A
     * different proposal under that id (another requester, kind, turn, conversation or parameters, or for a service
     * principal another token hash) is rejected with the reason; the stored action is untouched.
     */
    private Uni<Boolean> settleCopy(SqlClient sql, ActionProposed proposal, ActionRow existing) {
        Uni<Boolean> same = existing == null ? Uni.createFrom().item(false) : isSameProposal(sql, existing, proposal);
        return same.flatMap(copy -> {
            if (copy) {
                LOG.infof("Proposal %s is a copy of action %s, stored already; ignored", proposal.eventId(),
                        existing.id());
                return Uni.createFrom().item(false);
            }
            return reject(sql, proposal, ErrorCode.DUPLICATE_ACTION, ("action id %s is already taken by a different"
                    + " proposal; this one was not staged").formatted(proposal.actionId()));
        });
    }

    private Uni<Boolean> isSameProposal(SqlClient sql, ActionRow existing, ActionProposed proposal) {
        boolean sameFields = existing.requestedBy().equals(proposal.userId()) && existing.kind().equals(proposal.kind())
                && existing.paramsHash().equals(proposal.paramsHash())
                && Objects.equals(existing.conversationId(), proposal.conversationId())
                && Objects.equals(existing.turnId(), proposal.turnId());
        if (!sameFields || !Requesters.isService(proposal.userId())) {
            return Uni.createFrom().item(sameFields);
        }
        // A service principal decides with its own token: a copy with another token hash is another proposal.
        return actions.tokenHash(sql, existing.id(), proposal.tenantId())
                .map(stored -> Objects.equals(stored, proposal.tokenHash()));
    }

    /**
     * Spends the auto-apply budget, then confirms and executes in the staging transaction, recorded in the history as
     * the tier rules' move: the action is stored, confirmed and written together or not at all, like a person's
     * confirmation. Over the budget, it waits for a person instead. The spend is inside the savepoint, so an
     * application that fails costs no budget.
     */
    private Uni<Void> applyOnArrival(SqlClient sql, ActionRow stored, String reason) {
        return sql.query("SAVEPOINT " + AUTO_APPLY_SAVEPOINT).execute()
                .flatMap(ignored -> budgets.spend(sql, stored, AutoApply.budgetAmount(stored)))
                .flatMap(bound -> bound != null
                        ? lifecycle.held(sql, stored, bound.reason())
                        : lifecycle.staged(sql, stored)
                                .flatMap(ignored -> transactions.actAs(sql, ActionExecuted.AUTO_APPLIER,
                                        TenantTransactions.AUTO_APPLY, reason))
                                .flatMap(ignored -> actions.autoConfirm(sql, stored.id()))
                                .flatMap(confirmed -> confirmed == null
                                        ? Uni.createFrom().voidItem()
                                        : execution.run(sql, confirmed).replaceWithVoid()))
                // An unexpected failure of the write must not cost the proposal: it stays staged for a person.
                .onFailure(failure -> !TransientFailures.isTransient(failure)).recoverWithUni(failure -> {
                    LOG.warnf("Applying action %s on arrival failed (%s); it waits for a person", stored.id(),
                            failure.getMessage());
                    return sql.query("ROLLBACK TO SAVEPOINT " + AUTO_APPLY_SAVEPOINT).execute()
                            .flatMap(ignored -> lifecycle.held(sql, stored, APPLY_FAILED));
                });
    }

    /** min(requested, configured): a proposal can shorten its window, never extend it. */
    private Duration ttl(ActionProposed proposal) {
        Duration max = config.maxTtl();
        Integer requested = proposal.requestedTtlSeconds();
        if (requested == null || requested <= 0) {
            return max;
        }
        Duration asked = Duration.ofSeconds(requested);
        return asked.compareTo(max) < 0 ? asked : max;
    }

    /**
     * The confirm token hash stored with the action. A person's proposal gets a token this service mints and never
     * shows (an approver may ask for a fresh one, {@code reissue-token}, to decide by event); whatever hash the
     * proposer sent is ignored, so the agent, which proposes for people, never holds a token that decides. A service
     * principal's proposal keeps its own hash: the integration decides it by event, with a verified person's approver
     * token.
     */
    private static String tokenHash(ActionProposed proposal) {
        return Requesters.isService(proposal.userId())
                ? proposal.tokenHash()
                : ConfirmTokens.hash(ConfirmTokens.newToken());
    }

    private static String envelopeProblem(ActionProposed proposal) {
        if (!Identifiers.isPrintableId(proposal.tenantId())) {
            return "tenantId must be 1 to 128 printable characters";
        }
        if (!Identifiers.isPrintableId(proposal.userId())) {
            return "userId must be 1 to 128 printable characters";
        }
        if (proposal.conversationId() != null && !Identifiers.isPrintableId(proposal.conversationId())) {
            return "conversationId must be 1 to 128 printable characters";
        }
        if (Requesters.isService(proposal.userId())
                && (proposal.tokenHash() == null || !SHA256_HEX.matcher(proposal.tokenHash()).matches())) {
            return "tokenHash must be 64 lower-case hex characters (SHA-256) on a service principal's proposal";
        }
        return null;
    }

    private Uni<Boolean> reject(SqlClient sql, ActionProposed proposal, ErrorCode code, String reason) {
        LOG.infof("Rejected proposal %s of tenant %s: %s (%s)", proposal.actionId(), proposal.tenantId(), code.code(),
                reason);
        return outbox.append(sql, new ActionRejected(UUID.randomUUID(), ActionRejected.SCHEMA_VERSION, Instant.now(),
                proposal.actionId(), proposal.tenantId(), proposal.userId(), proposal.conversationId(),
                proposal.kind(), code.code(), reason)).replaceWith(true);
    }
}
