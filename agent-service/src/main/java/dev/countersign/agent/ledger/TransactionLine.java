package dev.countersign.agent.ledger;

import java.time.LocalDate;
import java.util.UUID;

/**
 * One ledger row as the agent reads it.
 *
 * @param ownText
 *            whether its free text (note, category) is the reading user's own: the row was written by an action that
 *            user requested and was not imported. Anything else (another user's row, an imported bank line, a row
 *            written outside the action flow) is text the user did not write, and reading it taints the turn.
 */
public record TransactionLine(UUID id, UUID walletId, String walletName, String amount, String currency,
        String category, String description, LocalDate occurredOn, boolean ownText) {
}
