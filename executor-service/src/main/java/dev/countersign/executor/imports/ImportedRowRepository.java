package dev.countersign.executor.imports;

import java.time.LocalDate;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.LockModeType;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Parameters;
import io.smallrye.mutiny.Uni;

/**
 * Imported rows, in the caller's tenant session ({@code TenantSessions}; row-level security applies). A row leaves
 * "waiting for a person" (unconfirmed, not removed) only through the two compare-and-swaps named for their transition,
 * {@code confirmUnconfirmed} and {@code rejectUnconfirmed}: their one statement's WHERE names the state it expects, and
 * each answers whether it won (one row) or how many rows it won (a list, one statement, so a request of 1000 rows is
 * one round trip); a loser changed nothing.
 */
@ApplicationScoped
public class ImportedRowRepository implements PanacheRepositoryBase<ImportedRow, UUID> {

    private static final String WAITING = "tenantId = :tenant and unconfirmed = true and deletedAt is null";
    /** Rows per INSERT batch when storing an import. */
    private static final int INSERT_BATCH = 100;

    /** The owner of the tenant's wallet, or null if the tenant has no such wallet. */
    public Uni<String> walletOwner(UUID walletId, String tenantId) {
        return getSession().flatMap(session -> session
                .createSelectionQuery("select ownerId from WalletEntity where id = ?1 and tenantId = ?2", String.class)
                .setParameter(1, walletId).setParameter(2, tenantId).getSingleResultOrNull());
    }

    /** Stores {@code rows} (each {@link ImportedRow#unconfirmed}) in batches of {@value #INSERT_BATCH}. */
    public Uni<Void> importUnconfirmed(List<ImportedRow> rows) {
        return getSession().invoke(session -> session.setBatchSize(INSERT_BATCH))
                .flatMap(session -> persist(rows).call(this::flush));
    }

    /**
     * Locks those of {@code ids} still waiting for a person ({@code FOR UPDATE}, by id, so two requests over the same
     * rows take them in the same order), for a confirm or reject that decides on them.
     */
    public Uni<List<ImportedRow>> lockWaiting(String tenantId, List<UUID> ids) {
        return find(WAITING + " and id in :ids order by id", Parameters.with("tenant", tenantId).and("ids", ids))
                .withLock(LockModeType.PESSIMISTIC_WRITE).list();
    }

    /** waiting -> confirmed by {@code userId}, one row; whether this call won. */
    public Uni<Boolean> confirmUnconfirmed(String tenantId, UUID id, String userId) {
        return confirmUnconfirmed(tenantId, List.of(id), userId).map(won -> won == 1);
    }

    /**
     * waiting -> confirmed by {@code userId}, for each of {@code ids} in one statement; how many rows this call won (a
     * row another request moved first is not counted and not touched).
     */
    public Uni<Integer> confirmUnconfirmed(String tenantId, List<UUID> ids, String userId) {
        return moveWaiting("unconfirmed = false, importConfirmedBy = :user", tenantId, ids, userId);
    }

    /** waiting -> rejected (removed, still unconfirmed) by {@code userId}, one row; whether this call won. */
    public Uni<Boolean> rejectUnconfirmed(String tenantId, UUID id, String userId) {
        return rejectUnconfirmed(tenantId, List.of(id), userId).map(won -> won == 1);
    }

    /** waiting -> rejected by {@code userId}, for each of {@code ids} in one statement; how many rows this call won. */
    public Uni<Integer> rejectUnconfirmed(String tenantId, List<UUID> ids, String userId) {
        return moveWaiting("deletedAt = offset datetime, importRejectedBy = :user", tenantId, ids, userId);
    }

    /** The one compare-and-swap statement: sets {@code set} on those of {@code ids} still waiting. */
    private Uni<Integer> moveWaiting(String set, String tenantId, List<UUID> ids, String userId) {
        if (ids.isEmpty()) {
            return Uni.createFrom().item(0);
        }
        return update(set + " where id in :ids and " + WAITING,
                Parameters.with("tenant", tenantId).and("ids", ids).and("user", userId));
    }

    /**
     * The tenant's rows waiting for a person, by date, with their wallet's name now; at most {@code limit}; only those
     * {@code importedBy} imported unless it is null.
     */
    public Uni<List<Waiting>> waiting(String tenantId, String importedBy, int limit) {
        String ownOnly = importedBy == null ? "" : " and t.importedBy = :importedBy";
        return getSession().flatMap(session -> {
            var query = session.createSelectionQuery("""
                    select t.id, t.walletId, w.name, t.occurredOn, t.amount, t.category, t.description, t.importedBy
                    from ImportedRow t join WalletEntity w on w.tenantId = t.tenantId and w.id = t.walletId
                    where t.tenantId = :tenant and t.unconfirmed = true and t.deletedAt is null%s
                    order by t.occurredOn, t.createdAt, t.id""".formatted(ownOnly), Object[].class)
                    .setParameter("tenant", tenantId);
            if (importedBy != null) {
                query.setParameter("importedBy", importedBy);
            }
            return query.setMaxResults(limit).getResultList();
        }).map(rows -> rows.stream().map(row -> new Waiting((UUID) row[0], (UUID) row[1], (String) row[2],
                (LocalDate) row[3], (java.math.BigDecimal) row[4], (String) row[5], (String) row[6],
                (String) row[7])).toList());
    }

    /** A row waiting for a person as the review list shows it. */
    public record Waiting(UUID id, UUID walletId, String walletName, LocalDate occurredOn, java.math.BigDecimal amount,
            String category, String description, String importedBy) {
    }
}
