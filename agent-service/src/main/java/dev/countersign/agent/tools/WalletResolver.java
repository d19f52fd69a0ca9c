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

    /**
     * Case-insensitive exact match on the name, or the wallet's id, from one read of the tenant's wallets; when nothing
     * matches, the tool result naming the wallets the model may use instead.
     */
    public Resolution resolve(String tenantId, String nameOrId) {
        List<WalletSummary> all = wallets(tenantId);
        String wanted = nameOrId == null ? "" : nameOrId.strip().toLowerCase(Locale.ROOT);
        Optional<WalletSummary> match = wanted.isEmpty()
                ? Optional.empty()
                : all.stream().filter(w -> w.name().toLowerCase(Locale.ROOT).equals(wanted)
                        || w.id().toString().equals(wanted)).findFirst();
        if (match.isPresent()) {
            return new Resolution(match.get(), null);
        }
        List<String> names = all.stream().map(WalletSummary::name).toList();
        return new Resolution(null, "There is no wallet named \"%s\". The user's wallets are: %s."
                .formatted(nameOrId, names.isEmpty() ? "(none)" : String.join(", ", names)));
    }

    /** Either the wallet, or (wallet null) the answer for the model. */
    public record Resolution(WalletSummary wallet, String unknown) {
    }
}
