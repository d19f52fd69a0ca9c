package dev.countersign.agent.tools;

import java.time.LocalDate;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.agent.ledger.WalletSummary;
import dev.countersign.contracts.api.ProposalCard;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.contracts.json.Json;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;

/**
 * Tools that propose writes. Each validates its arguments against the action catalogue, publishes a proposal and tells
 * the model that the action is staged, not done. No tool takes a status, and none writes anything itself. Every refusal
 * goes back to the model as the tool's result, naming what would have been accepted.
 */
@ApplicationScoped
public class ProposalTools {

    private static final Logger LOG = Logger.getLogger(ProposalTools.class);

    private final TurnContext turn;
    private final WalletResolver wallets;
    private final ProposalPublisher publisher;

    public ProposalTools(TurnContext turn, WalletResolver wallets, ProposalPublisher publisher) {
        this.turn = turn;
        this.wallets = wallets;
        this.publisher = publisher;
    }

    @Tool(name = "propose_expense", value = "Stage a new expense for the user to confirm. Nothing is written until"
            + " the user confirms it in the app.")
    public String proposeExpense(
            @P("The wallet's name, as list_wallets shows it") String walletName,
            @P("The amount spent, a positive decimal such as 12.50") String amount,
            @P("The spending category, e.g. coffee, groceries, rent") String category,
            @P(value = "A short note for the ledger", required = false) String description,
            @P(value = "The day of the expense as yyyy-MM-dd; today if omitted", required = false) String occurredOn) {
        WalletResolver.Resolution found = wallets.resolve(turn.tenantId(), walletName);
        if (found.wallet() == null) {
            return found.unknown() + " Nothing was staged.";
        }
        WalletSummary wallet = found.wallet();
        ObjectNode params = Json.mapper().createObjectNode()
                .put("walletId", wallet.id().toString())
                .put("amount", amount)
                .put("category", category)
                .put("occurredOn",
                        occurredOn == null || occurredOn.isBlank() ? LocalDate.now().toString() : occurredOn);
        if (description != null && !description.isBlank()) {
            params.put("description", description);
        }
        return stage(ActionCatalogue.CREATE_TRANSACTION, params, " in wallet \"" + wallet.name() + "\"");
    }

    @Tool(name = "rename_wallet", value = "Stage renaming one of the user's wallets, for the user to confirm. The"
            + " currency of a wallet can never be changed.")
    public String renameWallet(
            @P("The wallet's current name, as list_wallets shows it") String walletName,
            @P("The new name, at most 60 characters") String newName) {
        WalletResolver.Resolution found = wallets.resolve(turn.tenantId(), walletName);
        if (found.wallet() == null) {
            return found.unknown() + " Nothing was staged.";
        }
        WalletSummary wallet = found.wallet();
        ObjectNode params = Json.mapper().createObjectNode()
                .put("walletId", wallet.id().toString())
                .put("name", newName);
        return stage(ActionCatalogue.RENAME_WALLET, params, " (currently \"" + wallet.name() + "\")");
    }

    private String stage(String kind, ObjectNode params, String context) {
        ValidatedParams validated = ActionCatalogue.validate(kind, params);
        if (!validated.isValid()) {
            return "Not staged, the arguments were refused: %s. Fix them and call the tool again, or ask the user."
                    .formatted(validated.violationsText());
        }
        ProposalCard card;
        try {
            card = publisher.publish(turn, validated);
        } catch (RuntimeException e) {
            LOG.warnf("Publishing a %s proposal failed: %s", kind, e.getMessage());
            // The broker may have taken the event without acknowledging it in time: then it is staged, but nobody
            // holds its token, so it can only expire. Say exactly that much.
            return "Staging could not be completed for a technical reason. Nothing was changed, and the user has"
                    + " nothing to confirm. Tell the user it did not work and that they can try again; do not claim"
                    + " it was staged or done.";
        }
        turn.addProposal(card);
        return ("Staged action %s for the user's confirmation: %s%s. It is NOT applied: it waits until the user"
                + " confirms it in the app, and may expire. Tell the user it is waiting for their confirmation; never"
                + " say it is done.").formatted(card.actionId(), card.summary(), context);
    }
}
