package dev.countersign.contracts.api;

import java.util.List;
import java.util.UUID;

/**
 * {@code POST /api/actions/confirm-batch}: several actions of one tenant, each with its own token and the parameters
 * hash the person was shown (required, as on a single confirm), all or none.
 */
public record BatchConfirmRequest(List<Item> items) {

    public static final int MAX_ITEMS = 50;

    public record Item(UUID actionId, String token, String paramsHash) {

        @Override
        public String toString() {
            return "Item[actionId=%s, token=<redacted>]".formatted(actionId);
        }
    }
}
