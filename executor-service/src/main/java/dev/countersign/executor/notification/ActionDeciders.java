package dev.countersign.executor.notification;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * {@code GET /api/actions/{id}/deciders}: the people who may decide the action and would be told of it, by user id (and
 * username where known), among the members seen since {@code membersSeenSince}; who was told so far, through which
 * channel and how that went ({@code told}, never the address); when its reminder was requested ({@code remindedAt},
 * null if not); and, while the caller has a second-device request pending for it, the code their device shows
 * ({@code secondDeviceCode}: the caller's own, null otherwise).
 */
public record ActionDeciders(UUID actionId, List<Decider> deciders, Instant membersSeenSince, List<Told> told,
        Instant remindedAt, String secondDeviceCode) {

    /** The same, with the caller's second-device code. */
    public ActionDeciders withSecondDeviceCode(String code) {
        return new ActionDeciders(actionId, deciders, membersSeenSince, told, remindedAt, code);
    }

    /** One person who may decide. */
    public record Decider(String userId, String username) {
    }

    /**
     * One notification: to whom, through which channel ({@code email}, {@code webhook}, {@code second_device}), for
     * which purpose ({@code waiting}, {@code reminder}), its state ({@code pending}, {@code sent}, {@code refused},
     * {@code failed}, {@code dropped}) and when it was sent.
     */
    public record Told(String recipient, String channel, String purpose, String state, Instant sentAt) {
    }
}
