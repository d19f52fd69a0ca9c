package dev.countersign.executor.imports;

import java.io.Serializable;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;

/**
 * One person's approval of a HIGH imported row under a k-of-n policy (table {@code import_approvals}, append-only by
 * R__append_only_trails.sql). Recorded by {@link ImportApprovalRepository#approve} (an HQL insert that skips a repeat:
 * {@code on conflict do nothing}, no target, the key being the only unique constraint); never updated (not marked
 * {@code @Immutable}: Hibernate refuses mutation queries on immutable entities, the insert included).
 */
@Entity
@Table(name = "import_approvals")
@IdClass(ImportApproval.Key.class)
public class ImportApproval {

    @Id
    @Column(name = "transaction_id")
    public UUID transactionId;
    @Id
    public String approver;
    @Column(name = "tenant_id", nullable = false)
    public String tenantId;
    @Column(nullable = false)
    public String channel;
    /** Set by the database ({@code clock_timestamp()}). */
    @Column(insertable = false, updatable = false)
    public OffsetDateTime at;

    /** The key (transaction, approver). */
    public static class Key implements Serializable {

        public UUID transactionId;
        public String approver;

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && Objects.equals(transactionId, key.transactionId)
                    && Objects.equals(approver, key.approver);
        }

        @Override
        public int hashCode() {
            return Objects.hash(transactionId, approver);
        }
    }
}
