package dev.countersign.contracts.api;

import java.util.List;
import java.util.UUID;

/** {@code POST /api/actions/imports/confirm} and {@code .../reject}: the imported rows a person decided on. */
public record ImportedRowsRequest(List<UUID> transactionIds) {
}
