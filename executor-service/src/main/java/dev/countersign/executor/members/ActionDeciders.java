package dev.countersign.executor.members;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * {@code GET /api/actions/{id}/deciders}: the people who may decide the action and would be told of it, by user id (and
 * username where known), among the members seen since {@code membersSeenSince}.
 */
public record ActionDeciders(UUID actionId, List<Decider> deciders, Instant membersSeenSince) {

    /** One person who may decide. */
    public record Decider(String userId, String username) {
    }
}
