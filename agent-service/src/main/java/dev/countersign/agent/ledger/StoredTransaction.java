package dev.countersign.agent.ledger;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import org.hibernate.annotations.Immutable;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;

/**
 * A ledger row as executor-service stored it, mapped read-only (the columns the agent's reads use only). Reads leave
 * deleted and unconfirmed rows out themselves.
 */
@Entity(name = "StoredTransaction")
@Table(name = "transactions")
@Immutable
public class StoredTransaction extends PanacheEntityBase {

    @Id
    public UUID id;
    @Column(name = "tenant_id")
    public String tenantId;
    @Column(name = "wallet_id")
    public UUID walletId;
    public BigDecimal amount;
    public String category;
    public String description;
    @Column(name = "occurred_on")
    public LocalDate occurredOn;
    @Column(name = "source_action_id")
    public UUID sourceActionId;
    @Column(name = "category_action_id")
    public UUID categoryActionId;
    @Column(name = "description_action_id")
    public UUID descriptionActionId;
    @Column(name = "imported_by")
    public String importedBy;
    public boolean unconfirmed;
    @Column(name = "deleted_at")
    public Instant deletedAt;
    @Column(name = "created_at")
    public Instant createdAt;
}
