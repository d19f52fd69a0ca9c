package dev.countersign.executor.policy.change;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.PolicyChangeView;
import dev.countersign.executor.db.TenantSessions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.policy.PolicySettingsRepository;
import dev.countersign.web.ProblemException;
import io.smallrye.mutiny.Uni;

/**
 * The two-person rule for loosening (docs/security/authorization.md): an administrator's change of a tenant policy
 * applies at once if it keeps or tightens protection; one that weakens it ({@link PolicySetting#loosens}) is staged and
 * applies only when another administrator confirms it, against the value it was proposed against, within
 * {@code countersign.policy.change-window}. A tenant with one administrator gets an operator's break-glass exemption
 * (R__policy_changes.sql), never an API. Who may call these (an administrator who is a person) is the resource's check.
 * Changes and confirms of one tenant's policies take turns (an advisory lock), so a confirm never overwrites a
 * tightening committed between its compare and its write.
 */
@ApplicationScoped
public class PolicyChanges {

    private final TenantSessions sessions;
    private final PolicySettingsRepository policies;
    private final PolicyChangeRepository changes;
    private final Duration window;

    public PolicyChanges(TenantSessions sessions, PolicySettingsRepository policies, PolicyChangeRepository changes,
            @ConfigProperty(name = "countersign.policy.change-window") Duration window) {
        this.sessions = sessions;
        this.policies = policies;
        this.changes = changes;
        this.window = window;
    }

    /** What a change came to: applied at once, or staged for a second administrator. */
    public sealed interface Answer<T> {
    }

    public record Applied<T>(T value) implements Answer<T> {
    }

    public record Staged<T>(PolicyChangeView change) implements Answer<T> {
    }

    /** {@code actor} sets {@code setting} to {@code value}: applied now, or staged if it loosens protection. */
    public <T> Uni<Answer<T>> change(Actor actor, PolicySetting<T> setting, T value) {
        return sessions.run(actor, () -> changes.holdPolicies(actor.tenantId())
                .flatMap(held -> setting.reader().read(policies, actor.tenantId())).flatMap(current -> {
                    if (!setting.loosens(current, value)) {
                        return setting.writer().write(policies, actor.tenantId(), value, actor.userId())
                                .map(stored -> (Answer<T>) new Applied<>(stored));
                    }
                    return changes.supersede(actor.tenantId(), setting.name(), actor.userId())
                            .flatMap(superseded -> {
                                Instant now = Instant.now();
                                return changes.insert(actor.tenantId(), setting.name(), setting.essenceOf(value),
                                        setting.essenceOf(current), actor.userId(), now, now.plus(window));
                            })
                            .map(staged -> (Answer<T>) new Staged<T>(staged.view()));
                }));
    }

    /** The tenant's changes waiting for a second administrator. */
    public Uni<List<PolicyChangeView>> pending(String tenantId) {
        return sessions.read(tenantId, () -> changes.pending(tenantId, Instant.now()))
                .map(found -> found.stream().map(PolicyChangeRepository.StoredChange::view).toList());
    }

    /**
     * A second administrator applies a staged change: refused to its proposer (403 {@code second_admin_required})
     * unless an operator exempted it, once decided or past its window (409 {@code invalid_state_transition}), and when
     * the setting changed since it was proposed (409 {@code policy_changed}).
     */
    public Uni<PolicyChangeView> confirm(Actor actor, UUID id) {
        return sessions.run(actor, () -> changes.holdPolicies(actor.tenantId())
                .flatMap(held -> decidable(actor, id)).flatMap(change -> {
                    if (change.proposedBy().equals(actor.userId()) && change.breakGlassBy() == null) {
                        throw new ProblemException(ErrorCode.SECOND_ADMIN_REQUIRED,
                                "You proposed this change, which weakens"
                                        + " your tenant's protection: another administrator must confirm it"
                                        + " (docs/security/authorization.md).");
                    }
                    return apply(actor, change, PolicySettings.named(change.setting()).orElseThrow());
                }));
    }

    private <T> Uni<PolicyChangeView> apply(Actor actor, PolicyChangeRepository.StoredChange change,
            PolicySetting<T> setting) {
        return setting.reader().read(policies, actor.tenantId()).flatMap(current -> {
            if (!setting.essenceOf(current).equals(change.base())) {
                throw new ProblemException(ErrorCode.POLICY_CHANGED, ("The %s policy changed since this change was"
                        + " proposed; reject it and propose it again.").formatted(setting.name()));
            }
            // The move first, a compare-and-swap: if it lost, the setting is not written.
            return moved(changes.decide(actor.tenantId(), change.id(), "applied", actor.userId()))
                    .flatMap(applied -> setting.writer().write(policies, actor.tenantId(),
                            setting.valueOf(change.value()), actor.userId()));
        }).map(written -> change.decided("applied", actor.userId()).view());
    }

    /** Fails with 409 {@code invalid_state_transition} if the compare-and-swap did not move the change. */
    private static Uni<Boolean> moved(Uni<Boolean> decided) {
        return decided.map(moved -> {
            if (!moved) {
                throw new ProblemException(ErrorCode.INVALID_STATE_TRANSITION,
                        "This policy change was decided meanwhile; reload the pending changes.");
            }
            return true;
        });
    }

    /** Any administrator, its proposer included, rejects (withdraws) a staged change. */
    public Uni<PolicyChangeView> reject(Actor actor, UUID id) {
        return sessions.run(actor, () -> changes.holdPolicies(actor.tenantId())
                .flatMap(held -> decidable(actor, id))
                .flatMap(change -> moved(changes.decide(actor.tenantId(), id, "rejected", actor.userId()))
                        .map(rejected -> change.decided("rejected", actor.userId()).view())));
    }

    /**
     * The change, if it is still pending and within its window; 404 or 409 otherwise. Changes of one tenant take turns
     * ({@link PolicyChangeRepository#holdPolicies}), and the move itself is a compare-and-swap.
     */
    private Uni<PolicyChangeRepository.StoredChange> decidable(Actor actor, UUID id) {
        return changes.find(actor.tenantId(), id).map(change -> {
            if (change == null) {
                throw new ProblemException(ErrorCode.NOT_FOUND, "No such policy change in your tenant.");
            }
            if (!"pending".equals(change.status()) || !change.expiresAt().isAfter(Instant.now())) {
                throw new ProblemException(ErrorCode.INVALID_STATE_TRANSITION,
                        "This policy change is %s; propose it again.".formatted(
                                "pending".equals(change.status()) ? "past its window" : change.status()));
            }
            return change;
        });
    }
}
