package dev.countersign.localstack;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.UUID;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.contracts.events.ActionProposed;
import dev.countersign.contracts.json.Json;

/**
 * One {@code ledger.transaction.create} proposal (or, {@link #transfer}, a transfer) as the agent publishes it
 * ({@code ProposeExpenseTool}, {@code ProposalPublisher}): parameters validated and normalised by the catalogue, their
 * canonical hash, a conversation and a turn, and no confirm token (the executor mints that).
 *
 * @param event
 *            the {@code ActionProposed} JSON, to send keyed by {@code id}
 */
record ExpenseProposal(UUID id, String paramsHash, String event) {

    static ExpenseProposal of(String tenant, String user, UUID wallet, BigDecimal amount, String category,
            String description, String conversationId) {
        return of(tenant, user, wallet, amount, category, description, conversationId, null);
    }

    /**
     * The same, carrying {@code tokenHash}: an integration proposing as a service principal sends the hash of a token
     * of its own (required for a {@code service:} requester); a person's proposal sends none.
     */
    static ExpenseProposal of(String tenant, String user, UUID wallet, BigDecimal amount, String category,
            String description, String conversationId, String tokenHash) {
        ObjectNode raw = Json.mapper().createObjectNode()
                .put("walletId", wallet.toString())
                .put("amount", amount.toPlainString())
                .put("category", category)
                .put("description", description)
                .put("occurredOn", LocalDate.now().toString());
        return of(tenant, user, ShippedKinds.CREATE_TRANSACTION, raw, conversationId, tokenHash);
    }

    /**
     * A proposal of a transfer of {@code amount} between two wallets ({@code ledger.wallet.transfer}), as the agent
     * publishes it.
     */
    static ExpenseProposal transfer(String tenant, String user, UUID from, UUID to, BigDecimal amount,
            String conversationId) {
        ObjectNode raw = Json.mapper().createObjectNode()
                .put("fromWalletId", from.toString())
                .put("toWalletId", to.toString())
                .put("amount", amount.toPlainString())
                .put("occurredOn", LocalDate.now().toString());
        return of(tenant, user, ShippedKinds.TRANSFER, raw, conversationId, null);
    }

    /** A proposal of {@code kind} with {@code raw} parameters, validated, normalised and hashed by the catalogue. */
    private static ExpenseProposal of(String tenant, String user, String kind, ObjectNode raw, String conversationId,
            String tokenHash) {
        ValidatedParams params = ActionCatalogue.validate(kind, raw);
        if (!params.isValid()) {
            throw new IllegalStateException(params.violationsText());
        }
        UUID id = UUID.randomUUID();
        String event = Json.write(new ActionProposed(UUID.randomUUID(), ActionProposed.SCHEMA_VERSION, Instant.now(),
                id, tenant, user, conversationId, UUID.randomUUID(), kind, params.normalised(), params.hash(),
                tokenHash, null, true));
        return new ExpenseProposal(id, params.hash(), event);
    }
}
