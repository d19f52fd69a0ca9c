package dev.countersign.executor.action;

import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import org.hibernate.annotations.Immutable;

/**
 * A wallet as pages and imports read it (table {@code wallets}): its name and owner. Read-only: the ledger's executors
 * write wallets in native SQL inside the confirm path.
 */
@Entity
@Immutable
@Table(name = "wallets")
public class WalletEntity {

    @Id
    public UUID id;
    @Column(name = "tenant_id")
    public String tenantId;
    @Column(name = "owner_id")
    public String ownerId;
    public String name;
}
