package dev.countersign.agent.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.RequestScoped;

import dev.countersign.contracts.api.ProposalCard;

/**
 * Who is talking, in which conversation and turn, and the proposal cards staged so far in this turn. The cards hold the
 * raw confirm tokens: they go into the HTTP reply to the person, never into a tool result the model reads.
 */
@RequestScoped
public class TurnContext {

    private String tenantId;
    private String userId;
    private String conversationId;
    private UUID turnId;
    private final List<ProposalCard> proposals = new ArrayList<>();

    public void begin(String tenantId, String userId, String conversationId, UUID turnId) {
        this.tenantId = tenantId;
        this.userId = userId;
        this.conversationId = conversationId;
        this.turnId = turnId;
    }

    public String tenantId() {
        return tenantId;
    }

    public String userId() {
        return userId;
    }

    public String conversationId() {
        return conversationId;
    }

    public UUID turnId() {
        return turnId;
    }

    public void addProposal(ProposalCard card) {
        proposals.add(card);
    }

    public List<ProposalCard> proposals() {
        return List.copyOf(proposals);
    }
}
