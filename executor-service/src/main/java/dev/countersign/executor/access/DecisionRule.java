package dev.countersign.executor.access;

import java.util.Arrays;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Tier;
import dev.countersign.web.ProblemException;

/**
 * The one rule that answers "may this principal do this to this action or imported row, on this channel", for every
 * operation and channel. Resources, consumers and pages ask it and write no rule of their own. The table it implements
 * is printed in docs/security/authorization.md; {@code DecisionRuleTableTest} walks every cell of it against this
 * class.
 * <p>
 * The tenant's approval policy for HIGH actions (k approvers, the requester never one of them) applies after this rule,
 * to what it allows ({@code SeparationOfDuties}).
 * <p>
 * Limits: the rule sees the groups of the principal's token as the identity provider issued them; it cannot tell a
 * person who holds two accounts apart. The owner is the target row's owner when the action was staged.
 */
public final class DecisionRule {

    private DecisionRule() {
    }

    /** The verdict for {@code who} doing {@code operation} to an action of {@code tier} {@code requester} asked for. */
    public static Verdict decide(Principal who, Operation operation, Tier tier, String requester, String owner,
            Channel channel) {
        return decide(operation, tier, channel, Relation.of(who.userId(), requester, owner), who.approver(),
                who.admin(), who.service());
    }

    /**
     * Refuses with 404 {@code action_not_found} an action {@code who} may not even read (the same answer as for an id
     * that does not exist: neither its existence nor its content is told), then with 403 {@code forbidden} what the
     * rule does not allow; {@code what} names the operation for the person ("confirm this action"). For HTTP and the
     * page; a topic decision answers nobody.
     */
    public static void require(Principal who, Operation operation, Tier tier, String requester, String owner,
            Channel channel, String what) {
        if (hidesFrom(who, tier, requester, owner, channel)) {
            throw new ProblemException(ErrorCode.ACTION_NOT_FOUND, NOT_FOUND);
        }
        if (decide(who, operation, tier, requester, owner, channel) == Verdict.DENY) {
            throw new ProblemException(ErrorCode.FORBIDDEN, refusal(who, operation, what));
        }
    }

    /** What anyone is told of an action they may not read, or that does not exist. */
    public static final String NOT_FOUND = "No such action in your tenant.";

    /**
     * Whether {@code who} may not read an action of {@code tier} {@code requester} asked for, writing a row of
     * {@code owner}, over HTTP or the page: then a request about it is answered as for an action that does not exist.
     */
    public static boolean hidesFrom(Principal who, Tier tier, String requester, String owner, Channel channel) {
        return channel.answersCaller()
                && decide(who, Operation.READ, tier, requester, owner, channel) == Verdict.DENY;
    }

    /** What a refused principal is told: who may do it instead. */
    public static String refusal(Principal who, Operation operation, String what) {
        if (who.service()) {
            return "A service principal cannot %s: it needs a person (docs/security/authorization.md).".formatted(what);
        }
        String needs = switch (operation) {
            case CONFIRM, BATCH_CONFIRM, IMPORT_CONFIRM -> "the owner of the row it writes, or an approver of your"
                    + " tenant who did not ask for it";
            case CANCEL, IMPORT_REJECT -> "the person who asked for it, the owner of its row, or an approver";
            case UNDO -> "the owner of the row it wrote (below HIGH), or an administrator";
            case RESOLVE -> "an administrator";
            case REISSUE_TOKEN -> "an approver who did not ask for it";
            case PLAN_COMMIT -> "the person whose plan it is";
            case READ -> "the person who asked for it, the owner of its row, an approver or an administrator";
        };
        return "You may not %s: it needs %s (docs/security/authorization.md).".formatted(what, needs);
    }

    /**
     * Whether {@code who} may read every action of the tenant through {@code via}, whoever asked for it or owns its row
     * (an approver, an administrator). Otherwise it reads only those it asked for or whose row it owns: the rule's
     * other {@link Operation#READ} cells, which list queries narrow to in SQL so that pages stay whole.
     */
    public static boolean readsWholeTenant(Principal who, Channel via) {
        return readsEveryTier(who, via, Relation.NEITHER);
    }

    /** Whether {@code who} may read no action at all through {@code via}, not even its own (a service principal). */
    public static boolean readsNothing(Principal who, Channel via) {
        return Arrays.stream(Tier.values()).noneMatch(tier -> decide(Operation.READ, tier, via,
                Relation.REQUESTER_AND_OWNER, who.approver(), who.admin(), who.service()) == Verdict.ALLOW);
    }

    private static boolean readsEveryTier(Principal who, Channel via, Relation relation) {
        return Arrays.stream(Tier.values()).allMatch(tier -> decide(Operation.READ, tier, via, relation,
                who.approver(), who.admin(), who.service()) == Verdict.ALLOW);
    }

    /** One cell of the table. */
    public static Verdict decide(Operation operation, Tier tier, Channel channel, Relation relation, boolean approver,
            boolean admin, boolean service) {
        if (service) {
            return Verdict.DENY; // a service principal is never a person, nor an approver
        }
        if (!channel.answersCaller() && operation != Operation.CONFIRM && operation != Operation.CANCEL) {
            return Verdict.DENY; // the topic and a second device carry confirms and cancels only
        }
        boolean owns = relation == Relation.REQUESTER_AND_OWNER || relation == Relation.OWNER;
        boolean allowed = switch (operation) {
            // Another person's row: its owner, or an approver who did not ask for the write. Imported rows alike (the
            // tenant's approval policy then decides whether their importer may confirm those above the threshold).
            case CONFIRM, BATCH_CONFIRM, IMPORT_CONFIRM -> owns || (relation == Relation.NEITHER && approver);
            // Stopping a write is safe: whoever asked for it, owns its row, or approves.
            case CANCEL, IMPORT_REJECT -> relation != Relation.NEITHER || approver;
            // Reversing a HIGH write is an admin's; a smaller one its row's owner's too.
            case UNDO -> admin || (tier != Tier.HIGH && owns);
            case RESOLVE -> admin;
            // A fresh confirm token lets an integration decide: an approver's to hand out, not the requester's.
            case REISSUE_TOKEN -> approver && relation != Relation.REQUESTER
                    && relation != Relation.REQUESTER_AND_OWNER;
            case PLAN_COMMIT -> owns;
            // What a person may decide, or asked for, they may see; nobody else (a colleague's e-mail body, a
            // support case's address, a bank line's text).
            case READ -> relation != Relation.NEITHER || approver || admin;
        };
        return allowed ? Verdict.ALLOW : Verdict.DENY;
    }
}
