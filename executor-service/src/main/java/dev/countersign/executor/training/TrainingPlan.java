package dev.countersign.executor.training;

import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import dev.countersign.contracts.api.TrainingPlanView;

/**
 * A user's training plan (table {@code training_plans}, migrations V9 and V11). Its status moves only through
 * {@link TrainingPlanRepository}'s compare-and-swaps; the database's trigger refuses any other move whatever the
 * application does. The agent's kinds insert and revise drafts in native SQL ({@code DraftPlanExecutor},
 * {@code RevisePlanExecutor}, inside the confirm path).
 */
@Entity
@Table(name = "training_plans")
public class TrainingPlan {

    @Id
    public UUID id;
    @Column(name = "tenant_id", nullable = false)
    public String tenantId;
    @Column(name = "user_id", nullable = false)
    public String userId;
    @Column(nullable = false)
    public String name;
    public String goal;
    @Column(name = "starts_on", nullable = false)
    public LocalDate startsOn;
    @Column(nullable = false)
    public String schedule;
    @Column(nullable = false)
    public String status;
    @Column(name = "source_action_id")
    public UUID sourceActionId;
    @Column(nullable = false)
    public long version;
    @Column(name = "created_at", nullable = false)
    public OffsetDateTime createdAt;
    @Column(name = "updated_at", nullable = false)
    public OffsetDateTime updatedAt;
    @Column(name = "activated_by")
    public String activatedBy;
    @Column(name = "activated_at")
    public OffsetDateTime activatedAt;

    TrainingPlanView toView() {
        return new TrainingPlanView(id, name, goal, startsOn, schedule, status, version);
    }
}
