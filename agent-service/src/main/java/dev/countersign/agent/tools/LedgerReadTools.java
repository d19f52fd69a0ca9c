package dev.countersign.agent.tools;

import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.ledger.LedgerReader;
import dev.countersign.agent.ledger.TransactionLine;
import dev.countersign.agent.ledger.WalletSummary;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;

/** Read tools: they run inline, under the read-only role, within the caller's tenant. */
@ApplicationScoped
public class LedgerReadTools {

    private final TurnContext turn;
    private final WalletResolver wallets;
    private final LedgerReader ledger;

    public LedgerReadTools(TurnContext turn, WalletResolver wallets, LedgerReader ledger) {
        this.turn = turn;
        this.wallets = wallets;
        this.ledger = ledger;
    }

    @Tool(name = "list_wallets", value = "List the user's wallets with their currency.")
    public String listWallets() {
        List<WalletSummary> list = wallets.wallets(turn.tenantId());
        if (list.isEmpty()) {
            return "The user has no wallets.";
        }
        return list.stream().map(w -> "- %s (%s)".formatted(w.name(), w.currency()))
                .collect(Collectors.joining("\n", "Wallets:\n", ""));
    }

    @Tool(name = "recent_transactions", value = "The user's most recent transactions, newest first, optionally in one"
            + " wallet.")
    public String recentTransactions(
            @P(value = "A wallet name to narrow to; empty for all wallets", required = false) String walletName) {
        UUID walletId = null;
        if (walletName != null && !walletName.isBlank()) {
            WalletResolver.Resolution found = wallets.resolve(turn.tenantId(), walletName);
            if (found.wallet() == null) {
                return found.unknown();
            }
            walletId = found.wallet().id();
        }
        List<TransactionLine> lines = ledger.recentTransactions(turn.tenantId(), walletId, 20)
                .await().atMost(LedgerReader.TIMEOUT);
        if (lines.isEmpty()) {
            return "No transactions found.";
        }
        return lines.stream().map(t -> "- %s %s %s in %s (%s%s)".formatted(t.occurredOn(), t.amount(), t.currency(),
                t.walletName(), t.category(), t.description() == null ? "" : ": " + t.description()))
                .collect(Collectors.joining("\n", "Recent transactions (newest first):\n", ""));
    }
}
