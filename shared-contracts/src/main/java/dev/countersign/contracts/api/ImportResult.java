package dev.countersign.contracts.api;

import java.util.List;
import java.util.UUID;

/**
 * {@code POST /api/actions/imports}: the transactions stored, all unconfirmed, in the order of the CSV lines, and the
 * lines skipped because they record money in (a credit), not an expense.
 */
public record ImportResult(UUID walletId, List<UUID> transactionIds, List<SkippedLine> skipped) {

    /** The most lines one import takes. */
    public static final int MAX_LINES = 1000;

    /** A line of the file that was read and not stored, and why. */
    public record SkippedLine(int line, String reason) {
    }
}
