package dev.countersign.contracts.api;

import java.util.List;
import java.util.UUID;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/**
 * {@code POST /api/actions/confirm-batch}: several actions of one tenant, each with the parameters hash the person was
 * shown (required, as on a single confirm), all or none; decided by the signed-in person as a single confirm is.
 */
public record BatchConfirmRequest(
        @NotNull(message = "must hold 1 to " + BatchConfirmRequest.MAX_ITEMS
                + " items") @Size(min = 1, max = BatchConfirmRequest.MAX_ITEMS, message = "must hold {min} to {max} items") List<@NotNull(message = "must not be null") @Valid Item> items) {

    public static final int MAX_ITEMS = 50;

    public record Item(@NotNull(message = "must name the action") UUID actionId, String paramsHash) {
    }
}
