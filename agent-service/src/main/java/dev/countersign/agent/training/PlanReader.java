package dev.countersign.agent.training;

import java.time.LocalDate;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.ledger.OwnText;
import dev.countersign.agent.ledger.TenantSessions;
import io.quarkus.runtime.StartupEvent;

/**
 * Reads the user's training plans (active and drafts; archived ones are history), in the caller's tenant only: a mapped
 * read of {@link StoredPlan}, projected.
 */
@ApplicationScoped
public class PlanReader {

    public static final int MAX_PLANS = 20;

    /** The active plan first, then drafts, newest first. */
    private static final String PLANS = """
            select new dev.countersign.agent.training.PlanReader$Plan(p.id, p.name, p.goal, p.status, p.startsOn,
                   p.schedule, case when %s then true else false end)
            from StoredPlan p
            where p.tenantId = :tenant and p.userId = :user and p.status in ('active', 'draft')
              and (:status = 'any' or p.status = :status)
            order by case when p.status = 'active' then 0 else 1 end, p.updatedAt desc"""
            .formatted(Stream.of("p.nameActionId", "p.goalActionId", "p.scheduleActionId")
                    .map(writer -> OwnText.writtenByHql(":user", "coalesce(%s, p.sourceActionId)".formatted(writer),
                            "p.tenantId"))
                    .collect(Collectors.joining(" and ")));

    private final TenantSessions sessions;

    public PlanReader(TenantSessions sessions) {
        this.sessions = sessions;
    }

    void parseAtStartup(@Observes StartupEvent start) {
        sessions.parseAtStartup(PLANS, Plan.class);
    }

    /** The active plan first, then drafts, newest first; {@code status} null means both. */
    public List<Plan> plans(String tenantId, String userId, String status) {
        return sessions.await(new Person(tenantId, userId), session -> session.createSelectionQuery(PLANS, Plan.class)
                .setParameter("tenant", tenantId)
                .setParameter("user", userId)
                .setParameter("status", status == null ? "any" : status)
                .setMaxResults(MAX_PLANS)
                .getResultList());
    }

    /**
     * @param ownText
     *            whether the user's own clean turn wrote its name, goal and schedule ({@code OwnText})
     */
    public record Plan(UUID id, String name, String goal, String status, LocalDate startsOn, String schedule,
            boolean ownText) {
    }
}
