package dev.countersign.contracts.api;

import java.util.List;
import java.util.UUID;

/** {@code POST /api/actions/imports/confirm}: imported transactions a person has checked. */
public record ConfirmImportRequest(List<UUID> transactionIds) {
}
