package dev.countersign.executor.imports;

import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import org.hibernate.annotations.Immutable;

/** One step of an imported row (table {@code import_history}), appended by the database's trigger; read-only here. */
@Entity
@Immutable
@Table(name = "import_history")
public class ImportHistoryEntity {

    @Id
    public long id;
    @Column(name = "transaction_id")
    public UUID transactionId;
    @Column(name = "tenant_id")
    public String tenantId;
    @Column(name = "wallet_id")
    public UUID walletId;
    public String event;
    public String actor;
    public String channel;
    @Column(precision = 14, scale = 2)
    public BigDecimal amount;
    public String tier;
    public OffsetDateTime at;

    ImportService.ImportHistoryEntry toEntry() {
        return new ImportService.ImportHistoryEntry(event, actor, channel, walletId, amount.toPlainString(), tier,
                at.toInstant());
    }
}
