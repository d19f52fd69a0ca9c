package dev.countersign.executor.imports;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * An imported (machine-extracted) row of the books (table {@code transactions}, the columns an import uses; migrations
 * V12, V17, V21). Stored unconfirmed by {@link ImportedRowRepository#importUnconfirmed}; it leaves that state only
 * through the repository's compare-and-swaps {@code confirmUnconfirmed} and {@code rejectUnconfirmed}; the database's
 * triggers refuse any other move (R__import_gate.sql, R__transactions_import_guard.sql). The ledger's executors write
 * the same table for the agent's kinds in native SQL, inside the confirm path.
 */
@Entity
@Table(name = "transactions")
public class ImportedRow {

    @Id
    public UUID id;
    @Column(name = "tenant_id", nullable = false)
    public String tenantId;
    @Column(name = "wallet_id", nullable = false)
    public UUID walletId;
    @Column(nullable = false, precision = 14, scale = 2)
    public BigDecimal amount;
    @Column(nullable = false)
    public String category;
    public String description;
    @Column(name = "occurred_on", nullable = false)
    public LocalDate occurredOn;
    @Column(nullable = false)
    public boolean unconfirmed;
    @Column(name = "imported_by")
    public String importedBy;
    @Column(name = "import_confirmed_by")
    public String importConfirmedBy;
    @Column(name = "import_rejected_by")
    public String importRejectedBy;
    @Column(name = "deleted_at")
    public OffsetDateTime deletedAt;
    /** Set by the database (its default); ordering only. */
    @Column(name = "created_at", insertable = false, updatable = false)
    public OffsetDateTime createdAt;

    /** A new row waiting for a person, named for its importer. */
    static ImportedRow unconfirmed(String tenantId, UUID walletId, BigDecimal amount, String category,
            String description, LocalDate occurredOn, String importedBy) {
        ImportedRow row = new ImportedRow();
        row.id = UUID.randomUUID();
        row.tenantId = tenantId;
        row.walletId = walletId;
        row.amount = amount;
        row.category = category;
        row.description = description;
        row.occurredOn = occurredOn;
        row.unconfirmed = true;
        row.importedBy = importedBy;
        return row;
    }
}
