package dev.countersign.agent.actions;

import java.time.Instant;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import org.hibernate.annotations.Immutable;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;

/**
 * An action as executor-service stored it, mapped read-only and only in the columns the reader role is granted (its
 * grants on {@code actions} name columns: never the token hash). Loading a whole entity selects every mapped column, so
 * a column added here needs its grant first (executor migrations).
 */
@Entity(name = "StoredAction")
@Table(name = "actions")
@Immutable
public class StoredAction extends PanacheEntityBase {

    @Id
    public UUID id;
    @Column(name = "tenant_id")
    public String tenantId;
    @Column(name = "requested_by")
    public String requestedBy;
    @Column(name = "conversation_id")
    public String conversationId;
    public String kind;
    public String tier;
    public String status;
    public String summary;
    @Column(name = "proposed_at")
    public Instant proposedAt;
    @Column(name = "expires_at")
    public Instant expiresAt;
    /** Proposed from a clean turn (executor migration V16): the rule {@code OwnText} reads. */
    @Column(name = "context_clean")
    public boolean contextClean;
}
