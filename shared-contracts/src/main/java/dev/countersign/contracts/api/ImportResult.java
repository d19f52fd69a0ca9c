package dev.countersign.contracts.api;

import java.util.List;
import java.util.UUID;

/** {@code POST /api/actions/imports}: the transactions stored, all unconfirmed, in the order of the CSV lines. */
public record ImportResult(UUID walletId, List<UUID> transactionIds) {

    /** The most lines one import takes. */
    public static final int MAX_LINES = 1000;
}
