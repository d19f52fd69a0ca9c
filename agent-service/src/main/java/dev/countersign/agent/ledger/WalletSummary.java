package dev.countersign.agent.ledger;

import java.util.UUID;

public record WalletSummary(UUID id, String name, String currency) {
}
