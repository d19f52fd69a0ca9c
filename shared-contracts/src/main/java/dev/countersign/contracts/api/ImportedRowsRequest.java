package dev.countersign.contracts.api;

import java.util.List;
import java.util.UUID;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/** {@code POST /api/actions/imports/confirm} and {@code .../reject}: the imported rows a person decided on. */
public record ImportedRowsRequest(
        @NotNull(message = "must name 1 to " + ImportResult.MAX_LINES
                + " rows") @Size(min = 1, max = ImportResult.MAX_LINES, message = "must name {min} to {max} rows") List<@NotNull(message = "must not be null") UUID> transactionIds) {
}
