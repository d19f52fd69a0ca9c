package dev.countersign.executor.staging;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Identifiers;
import dev.countersign.contracts.Requesters;
import dev.countersign.contracts.api.AgentWritesPolicy;
import dev.countersign.contracts.catalogue.ActionCatalogue;
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
import dev.countersign.executor.db.Pipelining;
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
 * proposing turn clean (for an MCP call's, never marked clean: if the tenant opted its kind in) and the auto-apply
 * budget has room ({@link AutoApplyBudgets}); otherwise it waits for a person with the reason recorded on it.
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
    /** Why a proposal made through an MCP client, of a kind its tenant did not opt in, waits for a person. */
    static final String THROUGH_MCP = "it was proposed through an MCP client, whose context Countersign cannot see, so a"
            + " person confirms it";

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

    /** {@code proposal} ready to stage, with the trace it arrived in (read on its own record's context). */
    public StagingRequest request(ActionProposed proposal, String mcpClient) {
        return new StagingRequest(proposal, telemetry.currentTraceParent(), mcpClient);
    }

    /**
     * Stages proposals of one tenant in one transaction (the proposals of one tenant waiting together,
     * {@link ProposalConsumer}; or one alone): what every proposal needs is read and written with one statement for all
     * of them (the first-delivery records, the lookup of their ids, the tenant's policies, the inserts, the staged
     * events), the target reads of different proposals are sent together, and what only some need (a rejection, a copy
     * to settle, a hold, an application on arrival) follows one proposal at a time. Completes when the transaction
     * committed, with one answer per proposal in order: true if an outbox event was written for it (the relay should
     * run). A proposal refused by a rule is answered alone; a failure of the transaction fails the whole batch, which
     * the caller then stages one proposal at a time.
     */
    public Uni<List<Boolean>> stage(List<StagingRequest> batch) {
        String tenantId = batch.get(0).proposal().tenantId();
        if (batch.stream().anyMatch(request -> !Objects.equals(request.proposal().tenantId(), tenantId))) {
            throw new IllegalArgumentException("A staging batch holds proposals of one tenant");
        }
        if (batch.stream().map(request -> request.proposal().actionId()).distinct().count() != batch.size()) {
            // The consumer never batches two records of one action (they share a lane, which waits for the first).
            throw new IllegalArgumentException("A staging batch holds one proposal per action id");
        }
        // No actor: the history records each stored proposal as its requester's move (R__action_history.sql).
        Actor staging = new Actor(tenantId, "", TenantTransactions.AGENT);
        return transactions.run(staging, sql -> new Batch(sql, tenantId, batch).stage());
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

    /** One staging transaction's proposals and what it has decided for each so far. */
    private final class Batch {

        private final SqlClient sql;
        private final String tenantId;
        private final List<StagingRequest> requests;
        private final Boolean[] answers;
        /** Work for single proposals, run one after another once the batch's shared reads are in. */
        private final List<Supplier<Uni<Void>>> oneByOne = Collections.synchronizedList(new ArrayList<>());
        /** Proposals staged after all of that, one after another (they change a row another proposal changes). */
        private final List<Supplier<Uni<Void>>> afterAll = new ArrayList<>();
        /** The proposal of each action id a candidate holds. */
        private final Map<UUID, Integer> candidateOf = new HashMap<>();
        /** The rows the candidates change (their kinds' targets). */
        private final Set<UUID> targetsTaken = new HashSet<>();
        /** The batch's action ids (a row an action creates may be named by its action's id). */
        private final Set<UUID> actionIds;
        private StagingPolicies policy;

        Batch(SqlClient sql, String tenantId, List<StagingRequest> requests) {
            this.sql = sql;
            this.tenantId = tenantId;
            this.requests = requests;
            this.answers = new Boolean[requests.size()];
            this.actionIds = requests.stream().map(request -> request.proposal().actionId()).collect(
                    Collectors.toSet());
        }

        Uni<List<Boolean>> stage() {
            List<UUID> eventIds = requests.stream().map(r -> r.proposal().eventId()).filter(Objects::nonNull)
                    .toList();
            List<UUID> actionIds = requests.stream().map(r -> r.proposal().actionId()).filter(Objects::nonNull)
                    .toList();
            return Pipelining.sendTogether(processed.firstDeliveries(sql, CONSUMER, eventIds),
                    () -> Pipelining.sendTogether(actions.find(sql, actionIds, tenantId),
                            () -> policies.forStaging(sql, tenantId), Lookup::new),
                    (first, lookup) -> lookup.with(first))
                    .flatMap(this::decide)
                    .map(ignored -> {
                        if (Arrays.asList(answers).contains(null)) {
                            throw new IllegalStateException("A staging batch left a proposal unanswered");
                        }
                        return Arrays.asList(answers);
                    });
        }

        private Uni<Void> decide(Lookup lookup) {
            policy = lookup.policy();
            List<Candidate> candidates = new ArrayList<>();
            Set<UUID> first = new HashSet<>(lookup.firstDeliveries());
            for (int i = 0; i < requests.size(); i++) {
                ActionProposed proposal = requests.get(i).proposal();
                // An event id seen before (or twice in this batch) is a redelivery: nothing happens.
                if (proposal.eventId() != null && !first.remove(proposal.eventId())) {
                    answers[i] = false;
                    continue;
                }
                Candidate candidate = check(i, lookup);
                if (candidate != null) {
                    candidates.add(candidate);
                }
            }
            return readTargets(candidates).flatMap(this::store)
                    .flatMap(ignored -> runOneByOne());
        }

        /** The rules that need no further read; a proposal they refuse is answered one by one, later. */
        private Candidate check(int index, Lookup lookup) {
            ActionProposed proposal = requests.get(index).proposal();
            String envelopeProblem = envelopeProblem(proposal);
            if (envelopeProblem != null) {
                return rejectLater(index, ErrorCode.VALIDATION_FAILED, envelopeProblem);
            }
            // A copy of a staged action is settled before any other rule: a policy changed or a target gone since must
            // not publish a rejection under a live action's id.
            ActionRow existing = lookup.existing().get(proposal.actionId());
            if (existing != null) {
                return later(index, () -> settleCopy(sql, proposal, existing));
            }
            if (policy.agentWrites() == AgentWritesPolicy.Mode.DISABLED) {
                return rejectLater(index, ErrorCode.AGENT_WRITES_DISABLED,
                        "an administrator has switched agent writes off for this tenant");
            }
            ValidatedParams validated = ActionCatalogue.validate(proposal.kind(), proposal.params());
            if (!validated.isValid()) {
                return rejectLater(index, ErrorCode.VALIDATION_FAILED, validated.violationsText());
            }
            if (!executors.isExecutable(proposal.kind())) {
                return rejectLater(index, ErrorCode.KIND_NOT_SUPPORTED,
                        "this executor cannot carry out %s yet".formatted(proposal.kind()));
            }
            if (!validated.hash().equals(proposal.paramsHash())) {
                return rejectLater(index, ErrorCode.PARAMS_MISMATCH,
                        "paramsHash does not match the canonical hash of the normalised parameters");
            }
            if (executors.externalFor(proposal.kind()).isPresent() && !policy.externalSends()) {
                return rejectLater(index, ErrorCode.EXTERNAL_SENDS_DISABLED,
                        "an administrator has switched off external sends (e-mail, tickets) for this tenant");
            }
            Optional<UUID> target = targets.targetId(proposal.kind(), validated.normalised());
            if (target.isPresent() && (!targetsTaken.add(target.get()) || actionIds.contains(target.get()))) {
                // Another proposal of the batch changes the same row (or creates it: a row named by its action's id),
                // and may be applied on arrival before this one is stored: this one reads the row after the rest of
                // the batch, so its snapshot and tier are current.
                return last(index, () -> afterTheOthers(index));
            }
            candidateOf.put(proposal.actionId(), index);
            return new Candidate(index, validated);
        }

        /** The proposal at {@code index} staged alone, in this transaction, after the rest of the batch. */
        private Uni<Boolean> afterTheOthers(int index) {
            StagingRequest request = requests.get(index);
            Batch alone = new Batch(sql, tenantId, List.of(request));
            UUID eventId = request.proposal().eventId();
            // Its event id was claimed with the batch's and its action id was free at the batch's lookup.
            Lookup claimed = new Lookup(eventId == null ? Set.of() : Set.of(eventId), Map.of(), policy);
            return alone.decide(claimed).map(ignored -> alone.answers[0]);
        }

        /** A proposal whose id was taken after the lookup: a copy of what holds it, or a duplicate id. */
        private Uni<Boolean> settleTaken(ActionProposed proposal) {
            return actions.find(sql, proposal.actionId(), proposal.tenantId())
                    .flatMap(existing -> settleCopy(sql, proposal, existing));
        }

        /** Refuses the proposal at {@code index} with {@code code}, one by one after the shared work; null. */
        private <T> T rejectLater(int index, ErrorCode code, String reason) {
            ActionProposed proposal = requests.get(index).proposal();
            return later(index, () -> reject(sql, proposal, code, reason));
        }

        /** Settles the proposal at {@code index} by {@code work}, one by one after the shared work; null. */
        private <T> T later(int index, Supplier<Uni<Boolean>> work) {
            oneByOne.add(answering(index, work));
            return null;
        }

        /** Settles the proposal at {@code index} by {@code work} after everything else of the batch; null. */
        private <T> T last(int index, Supplier<Uni<Boolean>> work) {
            afterAll.add(answering(index, work));
            return null;
        }

        private Supplier<Uni<Void>> answering(int index, Supplier<Uni<Boolean>> work) {
            ActionProposed proposal = requests.get(index).proposal();
            return () -> ActionTelemetry.withLogFields(proposal.tenantId(), proposal.actionId(), work)
                    .invoke(wrote -> answers[index] = wrote).replaceWithVoid();
        }

        /**
         * Each candidate's target, kind's staging check and owner, the reads of all candidates sent together; a
         * candidate refused by them is answered one by one, later. Answers the actions to store.
         */
        private Uni<List<NewAction>> readTargets(List<Candidate> candidates) {
            if (candidates.isEmpty()) {
                return Uni.createFrom().item(List.of());
            }
            return Uni.join().all(candidates.stream().map(this::read).toList()).andFailFast()
                    .map(read -> read.stream().filter(Objects::nonNull).toList());
        }

        private Uni<NewAction> read(Candidate candidate) {
            ActionProposed proposal = requests.get(candidate.index()).proposal();
            JsonNode params = candidate.validated().normalised();
            return targets.refusal(sql, proposal.kind(), params, proposal.tenantId(), proposal.userId())
                    .flatMap(refused -> refused != null
                            ? Uni.createFrom().item(this.<NewAction>rejectLater(candidate.index(), refused.code(),
                                    refused.getMessage()))
                            : targets.read(sql, proposal.kind(), params, proposal.tenantId(), proposal.userId())
                                    .flatMap(target -> targets.owner(sql, proposal.kind(), params,
                                            proposal.tenantId(), proposal.userId())
                                            .map(owner -> newAction(candidate, target, owner))));
        }

        /** The action to store, or null (a refusal to answer later) when its row is missing. */
        private NewAction newAction(Candidate candidate, Optional<TargetSnapshot> target, String owner) {
            StagingRequest request = requests.get(candidate.index());
            ActionProposed proposal = request.proposal();
            ValidatedParams validated = candidate.validated();
            if (target.isEmpty() && targets.hasTarget(proposal.kind())) {
                return rejectLater(candidate.index(), ErrorCode.TARGET_NOT_FOUND,
                        targets.missing(proposal.kind(), validated.normalised()));
            }
            if (owner == null && targets.readsOwner(proposal.kind())) {
                // A missing owner reads as the requester's own (Relation.of): never stage one.
                return rejectLater(candidate.index(), ErrorCode.TARGET_NOT_FOUND,
                        "the row this action writes does not exist in this tenant");
            }
            return new NewAction(proposal.actionId(), proposal.tenantId(), proposal.userId(),
                    proposal.conversationId(), proposal.turnId(), proposal.kind(),
                    validated.definition().tierFor(validated.normalised(),
                            target.map(TargetSnapshot::fields).orElse(null), policy.tiers()),
                    validated.normalised(), validated.hash(), tokenHash(proposal), validated.summary(),
                    target.orElse(null), request.traceParent(), proposal.markedClean() && !request.throughMcp(), owner,
                    request.mcpClient(), ttl(proposal), null, List.of());
        }

        /**
         * Whether an action its tier could apply on arrival may be: the chat's if its turn was marked clean; an MCP
         * client's (never marked clean: Countersign cannot see that agent's context, and its text must never pass for
         * the person's own in a later turn) if the tenant's administrators opted its kind in.
         */
        private boolean mayApplyOnArrival(NewAction action) {
            return action.mcpClient() == null ? action.contextClean() : policy.mcpMayApply(action.kind());
        }

        /**
         * Stores the actions in one statement; each waits for a person, announced together, unless its tier lets it
         * apply on arrival or its id was taken meanwhile (both handled one by one, later).
         */
        private Uni<Void> store(List<NewAction> proposed) {
            if (proposed.isEmpty()) {
                return Uni.createFrom().voidItem();
            }
            AgentWritesPolicy.Mode agentWrites = policy.agentWrites();
            return actions.insertProposed(sql, proposed).flatMap(stored -> {
                List<ActionRow> waiting = new ArrayList<>();
                Uni<Void> decided = Uni.createFrom().voidItem();
                for (NewAction action : proposed) {
                    int index = candidateOf.get(action.id());
                    ActionRow row = stored.get(action.id());
                    ActionProposed proposal = requests.get(index).proposal();
                    if (row == null) {
                        // Taken between the lookup and the insert (a copy on another partition), or another tenant's.
                        later(index, () -> settleTaken(proposal));
                        continue;
                    }
                    answers[index] = true;
                    decided = decided.flatMap(ignored -> autoApply.reason(sql, row, agentWrites)).map(reason -> {
                        if (reason == null) {
                            waiting.add(row);
                        } else if (!mayApplyOnArrival(action)) {
                            String why = action.mcpClient() != null ? THROUGH_MCP : TAINTED;
                            later(index, () -> lifecycle.held(sql, row, why).replaceWith(true));
                        } else {
                            later(index, () -> applyOnArrival(sql, row, reason).replaceWith(true));
                        }
                        return null;
                    });
                }
                return decided.flatMap(ignored -> lifecycle.staged(sql, waiting));
            });
        }

        private Uni<Void> runOneByOne() {
            Uni<Void> chain = Uni.createFrom().voidItem();
            for (Supplier<Uni<Void>> work : oneByOne) {
                chain = chain.flatMap(ignored -> work.get());
            }
            for (Supplier<Uni<Void>> work : afterAll) {
                chain = chain.flatMap(ignored -> work.get());
            }
            return chain;
        }
    }

    /** What a batch reads before deciding anything: the first deliveries, the ids stored already, the policies. */
    private record Lookup(Set<UUID> firstDeliveries, Map<UUID, ActionRow> existing, StagingPolicies policy) {

        Lookup(Map<UUID, ActionRow> existing, StagingPolicies policy) {
            this(Set.of(), existing, policy);
        }

        Lookup with(Set<UUID> first) {
            return new Lookup(first, existing, policy);
        }
    }

    /** A proposal every rule without a read let through, waiting for its target reads. */
    private record Candidate(int index, ValidatedParams validated) {
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
                })
                // The tier rules acted for this action only: the rest of a batch is staged through the agent channel.
                .call(() -> transactions.actAs(sql, "", TenantTransactions.AGENT, ""));
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
