package dev.countersign.executor.action;

import java.io.Serializable;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;

import org.hibernate.annotations.Immutable;

/**
 * One approval of a HIGH action (table {@code action_approvals}, append-only), read here; recorded by
 * {@code ApprovalRepository} inside the confirm's transaction (native SQL).
 */
@Entity
@Immutable
@Table(name = "action_approvals")
@IdClass(ActionApprovalEntity.Key.class)
public class ActionApprovalEntity {

    @Id
    @Column(name = "action_id")
    public UUID actionId;
    @Id
    public String approver;
    @Column(name = "tenant_id")
    public String tenantId;
    public String channel;
    public OffsetDateTime at;

    /** The key (action, approver). */
    public static class Key implements Serializable {

        public UUID actionId;
        public String approver;

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && Objects.equals(actionId, key.actionId)
                    && Objects.equals(approver, key.approver);
        }

        @Override
        public int hashCode() {
            return Objects.hash(actionId, approver);
        }
    }
}
