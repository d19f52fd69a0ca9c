package dev.countersign.agent.tools;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.ledger.LedgerReader;
import dev.countersign.agent.ledger.WalletSummary;

/** Turns the wallet name the model used into one of the tenant's wallets, or an answer naming the ones that exist. */
@ApplicationScoped
public class WalletResolver {

    private final LedgerReader ledger;

    public WalletResolver(LedgerReader ledger) {
        this.ledger = ledger;
    }

    public List<WalletSummary> wallets(String tenantId) {
        return ledger.wallets(tenantId).await().atMost(LedgerReader.TIMEOUT);
    }

    /** Case-insensitive exact match on the name, or the wallet's id. */
    public Optional<WalletSummary> resolve(String tenantId, String nameOrId) {
        if (nameOrId == null || nameOrId.isBlank()) {
            return Optional.empty();
        }
        String wanted = nameOrId.strip().toLowerCase(Locale.ROOT);
        return wallets(tenantId).stream()
                .filter(w -> w.name().toLowerCase(Locale.ROOT).equals(wanted) || w.id().toString().equals(wanted))
                .findFirst();
    }

    /** The tool result for a wallet that does not exist: what the model may use instead. */
    public String unknownWallet(String tenantId, String nameOrId) {
        List<String> names = wallets(tenantId).stream().map(WalletSummary::name).toList();
        return "There is no wallet named \"%s\". The user's wallets are: %s."
                .formatted(nameOrId, names.isEmpty() ? "(none)" : String.join(", ", names));
    }
}
