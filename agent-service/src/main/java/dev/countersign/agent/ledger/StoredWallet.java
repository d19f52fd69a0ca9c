package dev.countersign.agent.ledger;

import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import org.hibernate.annotations.Immutable;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;

/** A wallet as executor-service stored it, mapped read-only: the agent never persists, updates or deletes one. */
@Entity(name = "StoredWallet")
@Table(name = "wallets")
@Immutable
public class StoredWallet extends PanacheEntityBase {

    @Id
    public UUID id;
    @Column(name = "tenant_id")
    public String tenantId;
    @Column(name = "owner_id")
    public String ownerId;
    public String name;
    public String currency;
    /** The rename that set the name; null when it was set with the wallet. */
    @Column(name = "name_action_id")
    public UUID nameActionId;
}
