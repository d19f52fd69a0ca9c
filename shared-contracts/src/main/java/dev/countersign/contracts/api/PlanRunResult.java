package dev.countersign.contracts.api;

import java.util.List;
import java.util.UUID;

/**
 * {@code POST /api/conversations/{id}/plans/{turnId}/run}: one page of the drafted statement's result, run read-only by
 * the person.
 *
 * @param rows
 *            each row's values in column order, as JSON scalars or text
 * @param hasMore
 *            another page exists within the cap
 * @param capped
 *            the cap on reachable rows was met: later rows are not shown
 * @param truncatedCells
 *            at least one value was cut to the cell limit
 * @param cutShort
 *            the page ended before pageSize rows because its values reached the per-run character limit; a smaller
 *            pageSize shows the rows it left out
 */
public record PlanRunResult(UUID turnId, List<String> columns, List<List<Object>> rows, int page, int pageSize,
        boolean hasMore, boolean capped, boolean truncatedCells, boolean cutShort) {
}
