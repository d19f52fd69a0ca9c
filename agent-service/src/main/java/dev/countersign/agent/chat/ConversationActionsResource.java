package dev.countersign.agent.chat;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.agent.actions.ActionReader;
import dev.countersign.agent.conversation.ConversationKey;
import dev.countersign.agent.conversation.ConversationLedger;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.events.ActionRejected;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;

/**
 * {@code GET /api/conversations/{id}/actions}: the status of each action proposed in the caller's conversation, for the
 * chat's read-only cards. Read with the agent's read-only role; deciding happens on executor-service's own page, which
 * the cards link to. A conversation whose first turn is not recorded yet is not found, like {@code GET
 * /api/conversations/{id}}: the page keeps asking while its cards wait.
 */
@Path("/api/conversations/{id}/actions")
@Authenticated
public class ConversationActionsResource {

    /** The status of a proposal the executor refused at staging (no action was stored). */
    static final String REJECTED = "rejected";

    /**
     * One card's state: the summary is the executor's, stored with the action (or its refusal, in words); the headline
     * says the same naming wallets, transactions and plans as they are called now.
     */
    public record ConversationAction(UUID actionId, String kind, String status, String summary, String headline,
            Instant proposedAt, Instant expiresAt) {
    }

    private final ConversationLedger ledger;
    private final ActionReader actions;
    private final CurrentUser user;

    public ConversationActionsResource(ConversationLedger ledger, ActionReader actions, CurrentUser user) {
        this.ledger = ledger;
        this.actions = actions;
        this.user = user;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<ConversationAction> list(@PathParam("id") String conversationId) {
        // The same check as reading the conversation: the key names the caller's tenant and user, so another user's
        // conversation (or another tenant's) has no turns under it and is not found.
        ConversationKey conversation = ConversationResource.key(user, conversationId);
        if (ledger.turns(conversation, 1).isEmpty()) {
            throw new ProblemException(ErrorCode.NOT_FOUND, "You have no conversation with this id.");
        }
        List<ConversationAction> cards = new java.util.ArrayList<>(actions.conversationActions(
                conversation.tenantId(), conversation.userId(), conversation.conversationId()).stream()
                .map(card -> new ConversationAction(card.action().id(), card.action().kind(), card.action().status(),
                        card.action().summary(), card.headline(), card.action().proposedAt(),
                        card.action().expiresAt()))
                .toList());
        cards.addAll(rejected(conversation, cards));
        return cards;
    }

    /**
     * Proposals the executor refused at staging: never stored as actions, so only their {@code ActionRejected} outcome
     * in the conversation's ledger says what became of them. Their card shows {@code rejected} and the refusal in words
     * the catalogue knows (never the proposer's free text), instead of waiting as if pending.
     */
    private List<ConversationAction> rejected(ConversationKey conversation, List<ConversationAction> stored) {
        java.util.Set<UUID> known = stored.stream().map(ConversationAction::actionId)
                .collect(java.util.stream.Collectors.toSet());
        return ledger.outcomes(conversation, ActionReader.MAX_CONVERSATION_ACTIONS).stream()
                .filter(outcome -> outcome instanceof ActionRejected && !known.contains(outcome.actionId()))
                .map(outcome -> (ActionRejected) outcome)
                .map(rejection -> new ConversationAction(rejection.actionId(),
                        ActionCatalogue.find(rejection.kind()).map(definition -> definition.kind()).orElse("unknown"),
                        REJECTED, rejection.describe(), rejection.describe(), rejection.occurredAt(), null))
                .toList();
    }
}
