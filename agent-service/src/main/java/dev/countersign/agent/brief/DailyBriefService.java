package dev.countersign.agent.brief;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.actions.ActionReader;
import dev.countersign.agent.actions.ActionReader.ActionLine;
import dev.countersign.agent.brief.DailyBrief.Training;
import dev.countersign.agent.conversation.ConversationLedger;
import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.ledger.LedgerReader;
import dev.countersign.agent.ledger.LedgerReader.RecordedSpending;
import dev.countersign.agent.training.PlanReader;

/**
 * Builds a user's brief from the readers, under the read-only role and the tenant's row-level security. Building
 * records nothing: only {@link BriefSchedule} records a brief, and only a recorded brief moves the window.
 */
@ApplicationScoped
public class DailyBriefService {

    private final LedgerReader ledger;
    private final ActionReader actions;
    private final PlanReader plans;
    private final ConversationLedger conversations;
    private final BriefConfig config;

    public DailyBriefService(LedgerReader ledger, ActionReader actions, PlanReader plans,
            ConversationLedger conversations, BriefConfig config) {
        this.ledger = ledger;
        this.actions = actions;
        this.plans = plans;
        this.conversations = conversations;
        this.config = config;
    }

    public DailyBrief build(String tenantId, String userId) {
        Instant since = conversations.latestOf(tenantId, userId,
                BriefConversation.recentEventIds(tenantId, userId, LocalDate.now()))
                .orElseGet(() -> Instant.now().minus(config.firstWindow()));
        RecordedSpending spending = ledger.recordedSince(new Person(tenantId, userId), since);
        LocalDate today = LocalDate.ofInstant(spending.to(), ZoneId.systemDefault());
        List<ActionLine> pending = actions.actions(tenantId, userId, true);
        Training training = plans.plans(tenantId, userId, "active").stream().findFirst()
                .map(plan -> new Training(plan.id(), plan.name(),
                        Workouts.next(plan.schedule(), today, plan.startsOn())))
                .orElse(null);
        return new DailyBrief(spending.from(), spending.to(), spending.byCategory(), spending.byCurrency(),
                spending.unconfirmedLeftOut(), pending, training);
    }
}
