package dev.countersign.agent.brief;

import java.time.LocalDate;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import dev.countersign.agent.conversation.ConversationLedger;
import dev.countersign.agent.conversation.TurnRecorder;
import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.evidence.RequestEvidence;
import dev.countersign.contracts.Identifiers;
import dev.countersign.contracts.api.ChatRequest;
import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.contracts.events.TurnRecorded.Ending;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduled.ConcurrentExecution;

/**
 * The scheduled brief: for every user of the configured tenants, the day's brief is recorded in the user's conversation
 * {@code brief-<day>} by publishing a {@link TurnRecorded} (the turn recorder's topic and path; this process writes no
 * database). Every agent replica runs the schedule; the event id is derived from tenant, user and day, so the executor
 * appends the first copy and drops the others, and a replica that finds the day's brief already in the ledger does not
 * build it again.
 * <p>
 * Limits: at most one scheduled brief per user and day (a second run that day finds it recorded). Briefs are built and
 * recorded one user at a time, each waiting up to the ledger wait. A brief whose publication fails is missing (no
 * outbox; the next day's brief then covers both days), as are users beyond {@code max-users-per-tenant}.
 * <p>
 * Limit (issue 16): a scheduled brief serves no person's request, so it carries no evidence, and executor-service no
 * longer appends conversation events without evidence (a compromised agent could otherwise write into anyone's
 * conversation): the executor dead-letters scheduled briefs ({@code evidence_missing}) and they do not reach the
 * ledger. Until the brief is built where evidence is not needed (by the executor itself, or on the user's next
 * signed-in request), leave {@code countersign.brief.tenants} empty. See docs/security/evidence.md.
 */
@ApplicationScoped
public class BriefSchedule {

    private static final Logger LOG = Logger.getLogger(BriefSchedule.class);

    private final DailyBriefService briefs;
    private final BriefRecipients recipients;
    private final ConversationLedger ledger;
    private final TurnRecorder recorder;
    private final BriefConfig config;

    public BriefSchedule(DailyBriefService briefs, BriefRecipients recipients, ConversationLedger ledger,
            TurnRecorder recorder, BriefConfig config) {
        this.briefs = briefs;
        this.recipients = recipients;
        this.ledger = ledger;
        this.recorder = recorder;
        this.config = config;
    }

    @Scheduled(identity = "daily-brief", cron = "${countersign.brief.cron}", concurrentExecution = ConcurrentExecution.SKIP)
    void scheduled() {
        run(LocalDate.now());
    }

    /** Records the day's brief of every user of the configured tenants; answers how many this call published. */
    public int run(LocalDate day) {
        int published = 0;
        for (String tenantId : config.tenants().orElse(List.of())) {
            if (!Identifiers.isPrintableId(tenantId)) {
                LOG.warnf("countersign.brief.tenants names an invalid tenant id; skipped");
                continue;
            }
            try {
                List<String> users = recipients.users(tenantId, config.maxUsersPerTenant() + 1);
                if (users.size() > config.maxUsersPerTenant()) {
                    LOG.warnf("Tenant %s has more than %d users: only the first get a brief", tenantId,
                            config.maxUsersPerTenant());
                    users = users.subList(0, config.maxUsersPerTenant());
                }
                for (String userId : users) {
                    published += record(tenantId, userId, day) ? 1 : 0;
                }
            } catch (RuntimeException e) {
                LOG.warnf("Daily briefs of tenant %s stopped: %s", tenantId, e.toString());
            }
        }
        return published;
    }

    /**
     * Publishes the user's brief of {@code day} unless it is in the ledger already; true if this call published it and
     * it reached the ledger. A failure is logged and ends this user's brief only.
     */
    public boolean record(String tenantId, String userId, LocalDate day) {
        UUID eventId = BriefConversation.eventId(tenantId, userId, day);
        try {
            if (ledger.contains(new Person(tenantId, userId), eventId)) {
                return false;
            }
            DailyBrief brief = briefs.build(tenantId, userId);
            return recorder.record(new TurnRecorded(eventId, TurnRecorded.SCHEMA_VERSION, brief.to(), tenantId, userId,
                    BriefConversation.id(day), BriefConversation.turnId(tenantId, userId, day), ChatRequest.ACT,
                    BriefConversation.USER_TEXT, List.of(), BriefText.of(brief), List.of(), Ending.ANSWERED,
                    // The brief lists the tenant's spending categories and pending summaries, not all the user's own.
                    true), RequestEvidence.NONE);
        } catch (RuntimeException e) {
            LOG.warnf("The daily brief of user %s of tenant %s was not recorded: %s", userId, tenantId, e.toString());
            return false;
        }
    }
}
