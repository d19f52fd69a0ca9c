package dev.countersign.executor.edit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.contracts.json.ConfirmTokens;
import dev.countersign.executor.access.Channel;
import dev.countersign.executor.access.DecisionRule;
import dev.countersign.executor.access.Operation;
import dev.countersign.executor.access.Principal;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.LockedAction;
import dev.countersign.executor.action.NewAction;
import dev.countersign.executor.action.TargetSnapshot;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.execution.ExecutorRegistry;
import dev.countersign.executor.execution.Targets;
import dev.countersign.executor.lifecycle.ActionLifecycle;
import dev.countersign.executor.outbox.OutboxRelay;
import dev.countersign.executor.policy.StagingPolicies;
import dev.countersign.executor.policy.TenantPolicyRepository;
import dev.countersign.web.ProblemException;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * Edit before approve (docs/approvals.md): a person who may stop a proposed action (the decision rule's cancel: its
 * requester, its row's owner, an approver) changes parameters its kind lets a person change ({@code personEditable}).
 * In one transaction, with the action locked: the old action moves {@code proposed -> superseded} naming the new one,
 * and the new one is stored naming the old one, bound to the edited parameters, with the editor as its requester,
 * checked, tiered and owned afresh as a proposal of the editor's would be (the kind's staging check, the target as it
 * is now, the tenant's tier thresholds). It ends when the old one would have (an edit never extends a window). It is
 * never applied on arrival (held: it waits for a decision, whatever its tier; the database refuses otherwise), so the
 * auto-apply budget is never spent on it; it needs its own decision under the same rule, and under
 * {@code highNeedsOtherApprover} neither its editor nor anyone who asked for an action it replaced may approve it
 * ({@code prior_requesters}: an edit is no approval). Confirming it earns its editor's agent no trust.
 * <p>
 * Provenance: text the edit left as proposed keeps its writer ({@code action_text_writer}, R__action_edits.sql), and
 * the new action is marked clean only when its editor edited their own clean proposal, since its summary repeats that
 * text: an amount-only edit never makes the agent's words anyone's own.
 * <p>
 * The old action's requester's conversation is told ({@code ActionSuperseded}); the new action belongs to no
 * conversation (its requester is the editor). A confirm of the old action racing the edit waits for its lock: exactly
 * one wins, and the other is answered with the winner's status.
 */
@ApplicationScoped
public class ActionEdits {

    /** The history channel of an edit. */
    public static final String CHANNEL = "edit";
    /** Why an edited action waits for a person (its held reason). */
    static final String HELD = "an edit always waits for a decision";

    private final TenantTransactions transactions;
    private final ActionRepository actions;
    private final ActionLifecycle lifecycle;
    private final TenantPolicyRepository policies;
    private final Targets targets;
    private final ExecutorRegistry executors;
    private final OutboxRelay relay;

    public ActionEdits(TenantTransactions transactions, ActionRepository actions, ActionLifecycle lifecycle,
            TenantPolicyRepository policies, Targets targets, ExecutorRegistry executors, OutboxRelay relay) {
        this.transactions = transactions;
        this.actions = actions;
        this.lifecycle = lifecycle;
        this.policies = policies;
        this.targets = targets;
        this.executors = executors;
        this.relay = relay;
    }

    /** What a person asks: the action, who they are, how they reach it, the hash they were shown, the changes. */
    public record Edit(UUID actionId, String tenantId, Principal editor, Channel via, String paramsHash,
            JsonNode changes) {
    }

    /** Edits the action; answers the new action, stored and waiting, or fails with a problem saying why not. */
    public Uni<ActionRow> edit(Edit edit) {
        if (edit.editor().service()) {
            throw new ProblemException(ErrorCode.FORBIDDEN, DecisionRule.refusal(edit.editor(), Operation.CANCEL,
                    "edit this action"));
        }
        Actor actor = new Actor(edit.tenantId(), edit.editor().userId(), CHANNEL);
        return transactions.run(actor, sql -> actions.lockForPerson(sql, edit.actionId(), edit.tenantId())
                .flatMap(locked -> editLocked(sql, edit, locked)))
                .invoke(relay::wakeUp)
                .map(outcome -> {
                    // A refusal that recorded something (the window closed: expired) is answered once it committed.
                    if (outcome.refused() != null) {
                        throw outcome.refused();
                    }
                    return outcome.edited();
                });
    }

    /** What an edit came to: the new action, or a refusal after a move this transaction records. */
    private record Outcome(ActionRow edited, ProblemException refused) {
    }

    private Uni<Outcome> editLocked(SqlClient sql, Edit edit, LockedAction locked) {
        ActionRow original = locked.row();
        if (original == null) {
            throw new ProblemException(ErrorCode.ACTION_NOT_FOUND, DecisionRule.NOT_FOUND);
        }
        DecisionRule.require(edit.editor(), Operation.CANCEL, original.tier(),
                original.requesterFor(edit.editor().userId()),
                original.targetOwner(), edit.via(), "edit this action");
        if (original.status() != ActionStatus.PROPOSED) {
            throw notProposed(original);
        }
        if (!locked.open()) {
            // Its window closed: record that as the sweep would (this transaction holds its lock), commit, then say so.
            return lifecycle.expire(sql, List.of(original.id())).map(expired -> new Outcome(null,
                    notProposed(expired.isEmpty() ? original : expired.get(0))));
        }
        if (!original.paramsHash().equals(edit.paramsHash())) {
            throw new ProblemException(ErrorCode.PARAMS_MISMATCH, "The action is not the one you edited (its"
                    + " parameters hash differs); nothing changed. Reload it.", original.toView());
        }
        ActionDefinition definition = ActionCatalogue.find(original.kind()).orElseThrow();
        ValidatedParams validated = merged(definition, original, edit.changes());
        List<String> changed = changed(definition, original.params(), validated.normalised());
        if (changed.isEmpty()) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, "The edit changes nothing; nothing changed.");
        }
        if (!executors.isExecutable(original.kind())) {
            throw new ProblemException(ErrorCode.KIND_NOT_SUPPORTED, "This executor cannot carry out " + original.kind()
                    + "; nothing changed.");
        }
        String editor = edit.editor().userId();
        JsonNode params = validated.normalised();
        return actions.contextClean(sql, original.id()).flatMap(originalClean -> policies.forStaging(sql,
                edit.tenantId())
                .flatMap(policy -> {
                    if (executors.externalFor(original.kind()).isPresent() && !policy.externalSends()) {
                        throw new ProblemException(ErrorCode.EXTERNAL_SENDS_DISABLED, "An administrator has switched"
                                + " off external sends for this tenant; nothing changed.");
                    }
                    return targets.refusal(sql, original.kind(), params, edit.tenantId(), editor)
                            .flatMap(refused -> {
                                if (refused != null) {
                                    throw new ProblemException(refused.code(), refused.getMessage()
                                            + " (an edit is checked as a proposal of its editor's); nothing changed.");
                                }
                                return targets.read(sql, original.kind(), params, edit.tenantId(), editor);
                            })
                            .flatMap(target -> targets.owner(sql, original.kind(), params, edit.tenantId(), editor)
                                    .map(owner -> newAction(original, locked, editor, originalClean, validated,
                                            policy, target, owner)));
                }))
                .flatMap(replacement -> lifecycle.superseded(sql, original.id(), edit.tenantId(), replacement.id(),
                        editor, changed)
                        .flatMap(superseded -> {
                            if (superseded == null) {
                                throw new IllegalStateException("the locked, open, proposed action " + original.id()
                                        + " was not superseded");
                            }
                            return actions.insertProposed(sql, List.of(replacement));
                        })
                        .map(stored -> stored.get(replacement.id())))
                .flatMap(stored -> lifecycle.held(sql, stored, HELD)
                        .flatMap(ignored -> actions.find(sql, stored.id(), stored.tenantId())))
                .map(edited -> new Outcome(edited, null));
    }

    /**
     * The new action, or a refusal when its row is missing now. It ends when the original would have: an edit never
     * extends a decision window. It is marked clean only when its editor edits their own clean proposal: its summary
     * repeats the text the edit left as proposed, which is its editor's own only then (the page's and the agent's
     * {@code OwnText} rule reads an action's summary by its requester and this mark).
     */
    private NewAction newAction(ActionRow original, LockedAction locked, String editor, boolean originalClean,
            ValidatedParams validated, StagingPolicies policy, Optional<TargetSnapshot> target, String owner) {
        if (target.isEmpty() && targets.hasTarget(original.kind())
                || owner == null && targets.readsOwner(original.kind())) {
            throw new ProblemException(ErrorCode.TARGET_NOT_FOUND, "The row this action writes no longer exists in"
                    + " this tenant; nothing changed.");
        }
        JsonNode params = validated.normalised();
        return new NewAction(UUID.randomUUID(), original.tenantId(), editor, null, null, original.kind(),
                validated.definition().tierFor(params, target.map(TargetSnapshot::fields).orElse(null),
                        policy.tiers()),
                params, validated.hash(), ConfirmTokens.hash(ConfirmTokens.newToken()), validated.summary(),
                target.orElse(null), null, originalClean && editor.equals(original.requestedBy()), owner, null,
                Duration.between(locked.lockedAt(), original.expiresAt()), original.id(),
                original.requesters());
    }

    /** The original parameters with the changes applied, validated; only parameters a person may change. */
    private static ValidatedParams merged(ActionDefinition definition, ActionRow original, JsonNode changes) {
        if (changes == null || !changes.isObject() || changes.isEmpty()) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, "params must be an object naming the parameters"
                    + " to change: " + String.join(", ", definition.personEditable()) + "; nothing changed.");
        }
        ObjectNode merged = original.params().deepCopy();
        for (Iterator<Map.Entry<String, JsonNode>> fields = changes.fields(); fields.hasNext();) {
            Map.Entry<String, JsonNode> field = fields.next();
            if (!definition.personEditable().contains(field.getKey())) {
                throw new ProblemException(ErrorCode.VALIDATION_FAILED, (definition.personEditable().isEmpty()
                        ? "No parameter of this kind may be changed by a person"
                        : "A person may change only " + String.join(", ", definition.personEditable())
                                + " of this kind")
                        + "; nothing changed.");
            }
            if (field.getValue() == null || field.getValue().isNull()) {
                merged.remove(field.getKey());
            } else {
                merged.set(field.getKey(), field.getValue());
            }
        }
        ValidatedParams validated = ActionCatalogue.validate(original.kind(), merged);
        if (!validated.isValid()) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, validated.violationsText() + "; nothing changed.");
        }
        return validated;
    }

    /** The parameters a person may change whose normal form differs, in the kind's order. */
    private static List<String> changed(ActionDefinition definition, JsonNode before, JsonNode after) {
        List<String> changed = new ArrayList<>();
        for (String field : definition.personEditable()) {
            if (!Objects.equals(before.get(field), after.get(field))) {
                changed.add(field);
            }
        }
        return changed;
    }

    private static ProblemException notProposed(ActionRow current) {
        return new ProblemException(ErrorCode.INVALID_STATE_TRANSITION,
                "The action is %s and can no longer be edited; see action.status.".formatted(
                        current.status().wireName()),
                current.toView());
    }
}
