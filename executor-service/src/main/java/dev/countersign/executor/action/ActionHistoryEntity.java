package dev.countersign.executor.action;

import java.time.OffsetDateTime;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import org.hibernate.annotations.Immutable;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.api.ActionHistoryEntry;

/** One move of an action (table {@code action_history}), appended by the database's trigger; read-only here. */
@Entity
@Immutable
@Table(name = "action_history")
public class ActionHistoryEntity {

    @Id
    public long id;
    @Column(name = "action_id")
    public UUID actionId;
    @Column(name = "tenant_id")
    public String tenantId;
    @Column(name = "from_status")
    public String fromStatus;
    @Column(name = "to_status")
    public String toStatus;
    public String actor;
    public String channel;
    public String reason;
    public OffsetDateTime at;

    ActionHistoryEntry toEntry() {
        return new ActionHistoryEntry(fromStatus == null ? null : ActionStatus.fromWire(fromStatus),
                ActionStatus.fromWire(toStatus), actor, channel, reason, at.toInstant());
    }
}
