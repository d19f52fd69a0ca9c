package dev.countersign.agent.ledger;

import java.util.UUID;

/**
 * @param trustedName
 *            whether the name was set with the wallet or by the reading user's own clean rename; a name another user
 *            chose is text the reader did not write, and the model is shown the wallet by id instead
 */
public record WalletSummary(UUID id, String name, String currency, boolean trustedName) {
}
