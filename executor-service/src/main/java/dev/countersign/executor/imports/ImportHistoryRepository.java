package dev.countersign.executor.imports;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.smallrye.mutiny.Uni;

/** The trail of imported rows, in the caller's tenant session (row-level security applies). */
@ApplicationScoped
public class ImportHistoryRepository implements PanacheRepositoryBase<ImportHistoryEntity, Long> {

    /** The trail of one imported row, oldest first; empty if the tenant has no such imported row. */
    public Uni<List<ImportService.ImportHistoryEntry>> of(String tenantId, java.util.UUID transactionId) {
        return list("tenantId = ?1 and transactionId = ?2 order by id", tenantId, transactionId)
                .map(entries -> entries.stream().map(ImportHistoryEntity::toEntry).toList());
    }
}
