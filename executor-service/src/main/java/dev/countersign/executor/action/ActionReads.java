package dev.countersign.executor.action;

import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.api.ActionHistoryEntry;
import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Parameters;
import io.smallrye.mutiny.Uni;

/**
 * What a person's page reads of the tenant's actions, in the caller's tenant session (row-level security applies): one
 * action, a page of them, an action's history, its approvers, the wallet names. Reads only; every move of an action
 * stays a native compare-and-swap in {@link ActionRepository}.
 */
@ApplicationScoped
public class ActionReads implements PanacheRepositoryBase<ActionEntity, UUID> {

    /** The action if it exists in this tenant; null otherwise (another tenant's action is simply absent). */
    public Uni<ActionRow> find(UUID id, String tenantId) {
        return find("id = ?1 and tenantId = ?2", id, tenantId).firstResult()
                .map(found -> found == null ? null : found.toRow());
    }

    /**
     * The tenant's actions, newest first, optionally narrowed; keyset-paged after ({@code afterProposedAt},
     * {@code afterId}) when those are given. Up to {@code limit} rows.
     */
    public Uni<List<ActionRow>> list(String tenantId, ActionFilter filter, int limit) {
        StringBuilder where = new StringBuilder("tenantId = :tenant");
        Parameters parameters = Parameters.with("tenant", tenantId);
        if (filter.status() != null) {
            where.append(" and status = :status");
            parameters.and("status", filter.status().wireName());
        }
        if (filter.kind() != null) {
            where.append(" and kind = :kind");
            parameters.and("kind", filter.kind());
        }
        if (filter.conversationId() != null) {
            where.append(" and conversationId = :conversation");
            parameters.and("conversation", filter.conversationId());
        }
        if (filter.visibleTo() != null) {
            // Relation.of's "not neither": asked for it, or owns its row (a row nobody owns is its requester's).
            where.append(" and (requestedBy = :person or targetOwner = :person)");
            parameters.and("person", filter.visibleTo());
        }
        if (filter.afterProposedAt() != null) {
            where.append(" and (proposedAt < :at or proposedAt = :at and id < :id)");
            parameters.and("at", filter.afterProposedAt().atOffset(ZoneOffset.UTC)).and("id", filter.afterId());
        }
        return find(where + " order by proposedAt desc, id desc", parameters).page(0, limit).list()
                .map(found -> found.stream().map(ActionEntity::toRow).toList());
    }

    /** Every state the action entered, oldest first; empty if it is not in this tenant. */
    public Uni<List<ActionHistoryEntry>> history(UUID id, String tenantId) {
        return getSession().flatMap(session -> session.createSelectionQuery(
                "from ActionHistoryEntity where actionId = ?1 and tenantId = ?2 order by id", ActionHistoryEntity.class)
                .setParameter(1, id).setParameter(2, tenantId).getResultList())
                .map(entries -> entries.stream().map(ActionHistoryEntity::toEntry).toList());
    }

    /** The approvers of a HIGH action so far, in the order they approved. */
    public Uni<List<String>> approvers(UUID id, String tenantId) {
        return getSession().flatMap(session -> session.createSelectionQuery(
                "select approver from ActionApprovalEntity where actionId = ?1 and tenantId = ?2 order by at, approver",
                String.class).setParameter(1, id).setParameter(2, tenantId).getResultList())
                .map(ArrayList::new);
    }

    /** The tenant's wallet names and owners, for {@link ActionRow#toView(PageNames)}. */
    public Uni<PageNames> pageNames(String tenantId) {
        return getSession().flatMap(session -> session.createSelectionQuery(
                "select id, name, ownerId from WalletEntity where tenantId = ?1", Object[].class)
                .setParameter(1, tenantId).getResultList())
                .map(rows -> {
                    Map<String, PageNames.Wallet> wallets = new HashMap<>();
                    rows.forEach(row -> wallets.put(row[0].toString(),
                            new PageNames.Wallet((String) row[1], (String) row[2])));
                    return PageNames.of(wallets);
                });
    }
}
