package dev.countersign.executor.imports;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Parameters;
import io.smallrye.mutiny.Uni;

/**
 * Approvals of HIGH imported rows under a k-of-n policy, in the caller's tenant session (row-level security applies).
 * Append-only: approving twice counts once, nothing is ever updated or removed.
 */
@ApplicationScoped
public class ImportApprovalRepository implements PanacheRepositoryBase<ImportApproval, ImportApproval.Key> {

    /** Records {@code approver}'s approval of each of {@code ids} (one statement); a repeat is skipped. */
    public Uni<Void> approve(String tenantId, List<UUID> ids, String approver, String channel) {
        if (ids.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        return getSession().flatMap(session -> session.createMutationQuery("""
                insert into ImportApproval (transactionId, tenantId, approver, channel)
                select t.id, t.tenantId, :approver, :channel from ImportedRow t
                where t.tenantId = :tenant and t.id in :ids
                on conflict do nothing""")
                .setParameter("approver", approver).setParameter("channel", channel)
                .setParameter("tenant", tenantId).setParameter("ids", ids).executeUpdate())
                .replaceWithVoid();
    }

    /**
     * Those of {@code ids} that have at least {@code needed} approvers, the importer not counted if
     * {@code importerNotCounted}.
     */
    public Uni<List<UUID>> approvedEnough(String tenantId, List<UUID> ids, int needed, boolean importerNotCounted) {
        if (ids.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        return getSession().flatMap(session -> session.createSelectionQuery("""
                select t.id from ImportedRow t
                where t.tenantId = :tenant and t.id in :ids
                  and (select count(*) from ImportApproval a where a.tenantId = t.tenantId
                       and a.transactionId = t.id""" + (importerNotCounted ? " and a.approver <> t.importedBy" : "")
                + ") >= :needed", UUID.class)
                .setParameter("tenant", tenantId).setParameter("ids", ids).setParameter("needed", (long) needed)
                .getResultList());
    }

    /** The approvers of each of {@code ids} so far, in the order they approved; rows without any are left out. */
    public Uni<Map<UUID, List<String>>> approversOf(String tenantId, List<UUID> ids) {
        if (ids.isEmpty()) {
            return Uni.createFrom().item(Map.of());
        }
        return list("tenantId = :tenant and transactionId in :ids order by at, approver",
                Parameters.with("tenant", tenantId).and("ids", ids))
                .map(approvals -> approvals.stream().collect(Collectors.groupingBy(a -> a.transactionId,
                        LinkedHashMap::new, Collectors.mapping(a -> a.approver, Collectors.toList()))));
    }
}
