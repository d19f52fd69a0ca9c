package dev.countersign.executor.members;

import java.time.Instant;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.api.ApprovalPolicy;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.policy.TenantPolicyRepository;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * What {@link Deciders} needs of one tenant, read in one place: its approval policy and its members seen within
 * {@link MembersConfig#maxAge()}. The decider list, the planner and the sender all read it here.
 */
@ApplicationScoped
public class TenantDeciders {

    private final TenantPolicyRepository policies;
    private final MemberRepository members;
    private final MembersConfig config;

    public TenantDeciders(TenantPolicyRepository policies, MemberRepository members, MembersConfig config) {
        this.policies = policies;
        this.members = members;
        this.config = config;
    }

    /** A tenant's policy and recent members as read now; {@link #of} answers who may decide one of its actions. */
    public record Known(ApprovalPolicy policy, List<Member> members, Instant seenSince) {

        public List<Member> of(ActionRow action) {
            return Deciders.of(action, policy, members);
        }
    }

    /** The tenant's policy and its members seen within the maximum age, in {@code sql}'s transaction. */
    public Uni<Known> read(SqlClient sql, String tenantId) {
        Instant seenSince = Instant.now().minus(config.maxAge());
        return policies.approvals(sql, tenantId)
                .flatMap(policy -> members.seenSince(sql, tenantId, seenSince)
                        .map(seen -> new Known(policy, seen, seenSince)));
    }
}
