package dev.countersign.agent.ledger;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** A tenant's wallets and spending categories, as one turn's tool schemas offer them. */
public record TenantFacts(List<WalletSummary> wallets, List<String> categories) {

    /** Most used first; a tenant with more categories than this offers only its most used ones as an enum. */
    public static final int MAX_CATEGORIES = 60;

    /** The tenant's categories followed by the defaults it does not use yet, compared in lower case. */
    static List<String> withDefaults(List<String> used, List<String> defaults) {
        Set<String> lower = new LinkedHashSet<>();
        List<String> all = new java.util.ArrayList<>();
        for (String category : used) {
            if (lower.add(category.toLowerCase(Locale.ROOT))) {
                all.add(category);
            }
        }
        for (String category : defaults) {
            if (lower.add(category.toLowerCase(Locale.ROOT))) {
                all.add(category);
            }
        }
        return List.copyOf(all);
    }
}
