package dev.countersign.executor.policy;

import java.io.Serializable;
import java.time.OffsetDateTime;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;

/**
 * A user's run of MEDIUM actions a person confirmed (table {@code user_trust}), read here; counted and reset by
 * {@link TrustRepository}'s upserts inside the decision's own transaction (native SQL, the confirm path).
 */
@Entity
@Table(name = "user_trust")
@IdClass(UserTrust.Key.class)
public class UserTrust {

    @Id
    @Column(name = "tenant_id")
    public String tenantId;
    @Id
    @Column(name = "user_id")
    public String userId;
    @Column(name = "medium_confirmed_in_a_row", nullable = false)
    public int mediumConfirmedInARow;
    @Column(name = "reset_at")
    public OffsetDateTime resetAt;
    @Column(name = "reset_because")
    public String resetBecause;
    @Column(name = "updated_at", nullable = false)
    public OffsetDateTime updatedAt;

    TrustRepository.Run run() {
        return new TrustRepository.Run(mediumConfirmedInARow, resetAt == null ? null : resetAt.toInstant(),
                resetBecause);
    }

    /** The composite key (tenant, user). */
    public static class Key implements Serializable {

        public String tenantId;
        public String userId;

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && java.util.Objects.equals(tenantId, key.tenantId)
                    && java.util.Objects.equals(userId, key.userId);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(tenantId, userId);
        }
    }
}
