package dev.countersign.agent.ledger;

import java.time.LocalDate;
import java.util.UUID;

public record TransactionLine(UUID id, UUID walletId, String walletName, String amount, String currency,
        String category, String description, LocalDate occurredOn) {
}
