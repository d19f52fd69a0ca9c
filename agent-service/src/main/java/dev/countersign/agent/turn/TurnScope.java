package dev.countersign.agent.turn;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

import dev.countersign.agent.conversation.ConversationKey;
import dev.countersign.agent.evidence.RequestEvidence;
import dev.countersign.agent.ledger.WalletSummary;
import dev.countersign.contracts.api.ProposalCard;

/**
 * One turn's facts: who is talking, in which conversation, the tenant's live wallets and categories (read once when the
 * turn starts; the tool schemas offer exactly these), and the proposal cards submitted so far (the reply shows them; a
 * repeat of one in the same turn is found here and not sent again). It also carries the taint mark: whether the model's
 * context has held free text its user did not write. Used by one thread at a time (a turn runs its tool calls one after
 * another).
 */
public final class TurnScope {

    private final ConversationKey conversation;
    private final RequestEvidence evidence;
    private final UUID turnId;
    private final List<WalletSummary> wallets;
    private final Map<String, WalletSummary> walletsByLabel;
    private final List<String> categories;
    private final List<ProposalCard> proposals = new ArrayList<>();
    private final boolean listing;
    private String untrustedSource;

    public TurnScope(ConversationKey conversation, RequestEvidence evidence, UUID turnId, List<WalletSummary> wallets,
            List<String> categories) {
        this(conversation, evidence, turnId, wallets, categories, false);
    }

    private TurnScope(ConversationKey conversation, RequestEvidence evidence, UUID turnId, List<WalletSummary> wallets,
            List<String> categories, boolean listing) {
        this.conversation = conversation;
        this.evidence = evidence;
        this.turnId = turnId;
        this.wallets = List.copyOf(wallets);
        this.walletsByLabel = label(wallets);
        this.categories = List.copyOf(categories);
        this.listing = listing;
    }

    /**
     * No person's turn: the scope tool specifications are built in when they are listed once for everyone (the MCP
     * server's tools), so a wallet or category argument is a plain string checked against the caller's live values when
     * the tool is called, not an enum of them. Nothing can be called in it.
     */
    public static TurnScope forListing() {
        TurnScope listing = new TurnScope(null, RequestEvidence.NONE, null, List.of(), List.of(), true);
        // Listed for callers whose context Countersign cannot see: nothing they propose applies on arrival.
        listing.readUntrustedText("a caller whose context is unknown");
        return listing;
    }

    /** Whether this is {@link #forListing()}'s scope: the schemas name no tenant's values. */
    public boolean listing() {
        return listing;
    }

    public ConversationKey conversation() {
        return conversation;
    }

    /** The person's token that every event this turn publishes carries. */
    public RequestEvidence evidence() {
        return evidence;
    }

    public String tenantId() {
        return conversation.tenantId();
    }

    public String userId() {
        return conversation.userId();
    }

    public UUID turnId() {
        return turnId;
    }

    public List<WalletSummary> wallets() {
        return wallets;
    }

    /**
     * The labels the model picks a wallet by: its name, or, where two wallets share a name, the name with the start of
     * the id, so each label means one wallet.
     */
    public List<String> walletLabels() {
        return List.copyOf(walletsByLabel.keySet());
    }

    public WalletSummary walletLabelled(String label) {
        WalletSummary wallet = walletsByLabel.get(label);
        if (wallet == null) {
            throw new IllegalArgumentException("No wallet labelled " + label);
        }
        return wallet;
    }

    public String labelOf(UUID walletId) {
        return walletsByLabel.entrySet().stream().filter(e -> e.getValue().id().equals(walletId))
                .map(Map.Entry::getKey).findFirst().orElse(walletId.toString());
    }

    /**
     * Labels by name, or, where two wallets share a name, the name with the start of the id; a wallet whose name
     * another user chose is labelled by its id only, so that name never reaches the model.
     */
    private static Map<String, WalletSummary> label(List<WalletSummary> wallets) {
        Map<String, Long> sameName = wallets.stream().filter(WalletSummary::trustedName)
                .collect(Collectors.groupingBy(w -> w.name().toLowerCase(Locale.ROOT), Collectors.counting()));
        Map<String, WalletSummary> labelled = new LinkedHashMap<>();
        for (WalletSummary wallet : wallets) {
            String shortId = wallet.id().toString().substring(0, 8);
            if (!wallet.trustedName()) {
                labelled.put("wallet " + shortId, wallet);
            } else {
                boolean shared = sameName.get(wallet.name().toLowerCase(Locale.ROOT)) > 1;
                labelled.put(shared ? "%s (%s)".formatted(wallet.name(), shortId) : wallet.name(), wallet);
            }
        }
        return labelled;
    }

    /** The tenant's spending categories: those in its ledger, and the catalogue's defaults. */
    public List<String> categories() {
        return categories;
    }

    /** Whether {@code category} is one this turn offers (the user's own or a default), in any case. */
    public boolean offersCategory(String category) {
        return categories.stream().anyMatch(offered -> offered.equalsIgnoreCase(category));
    }

    /**
     * The model's context now holds free text the signed-in user did not write ({@code source} says which, for the
     * log): from here on, this turn's proposals are marked tainted and wait for a person, and so does every later turn
     * that replays this one. See docs/security/auto-apply.md for what counts.
     */
    public void readUntrustedText(String source) {
        if (untrustedSource == null) {
            untrustedSource = source;
        }
    }

    /** True while the model's context holds only text the user wrote, the system's own and names (the taint mark). */
    public boolean contextClean() {
        return untrustedSource == null;
    }

    /** What first tainted the turn, or null. */
    public String untrustedSource() {
        return untrustedSource;
    }

    public void addProposal(ProposalCard card) {
        proposals.add(card);
    }

    /** The card of the proposal with this action id submitted earlier in this turn, if any. */
    public Optional<ProposalCard> proposal(UUID actionId) {
        return proposals.stream().filter(card -> card.actionId().equals(actionId)).findFirst();
    }

    public List<ProposalCard> proposals() {
        return List.copyOf(proposals);
    }
}
