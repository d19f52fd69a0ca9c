package dev.countersign.agent.training;

import java.time.Instant;
import java.time.LocalDate;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import org.hibernate.annotations.Immutable;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;

/** A training plan as executor-service stored it, mapped read-only. */
@Entity(name = "StoredPlan")
@Table(name = "training_plans")
@Immutable
public class StoredPlan extends PanacheEntityBase {

    @Id
    public UUID id;
    @Column(name = "tenant_id")
    public String tenantId;
    @Column(name = "user_id")
    public String userId;
    public String name;
    public String goal;
    public String status;
    @Column(name = "starts_on")
    public LocalDate startsOn;
    public String schedule;
    @Column(name = "source_action_id")
    public UUID sourceActionId;
    @Column(name = "name_action_id")
    public UUID nameActionId;
    @Column(name = "goal_action_id")
    public UUID goalActionId;
    @Column(name = "schedule_action_id")
    public UUID scheduleActionId;
    @Column(name = "updated_at")
    public Instant updatedAt;
}
