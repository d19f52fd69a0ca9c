package dev.countersign.agent.tools.propose;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The action id of a proposal derives from what is proposed: the turn, the kind and the hash of the normalised
 * parameters. A model that repeats a proposal in the same turn (the natural retry after "pending") names the same
 * action, which the executor stages at most once.
 * <p>
 * Limit: two identical proposals in one turn are one action, even when the user meant two (two equal coffees); the tool
 * says so to the model, and the second goes in a later turn. A new turn (the user sending the message again after an
 * agent crash) is a new proposal.
 */
public final class ProposalIds {

    private ProposalIds() {
    }

    public static UUID actionId(UUID turnId, String kind, String paramsHash) {
        return UUID.nameUUIDFromBytes(String.join("\n", "countersign.proposal", turnId.toString(), kind, paramsHash)
                .getBytes(StandardCharsets.UTF_8));
    }
}
