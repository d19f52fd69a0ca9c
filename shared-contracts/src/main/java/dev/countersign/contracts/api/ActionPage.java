package dev.countersign.contracts.api;

import java.util.List;

/**
 * One page of {@code GET /api/actions}, newest first.
 *
 * @param nextCursor
 *            pass as {@code cursor} for the next page; null on the last page
 */
public record ActionPage(List<ActionView> items, String nextCursor) {
}
