package dev.countersign.device;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * The requests Keycloak posted and nobody answered yet, in memory: a device that restarts forgets them (each then
 * expires at Keycloak unanswered, and the executor leaves its action as it was). At most {@value #MAX} at once; a
 * request beyond that is refused, and Keycloak answers the executor that the channel failed.
 */
@ApplicationScoped
class ChannelRequests {

    static final int MAX = 1000;

    private final Map<UUID, ChannelRequest> pending = new ConcurrentHashMap<>();
    /**
     * The token ids of requests answered or dismissed here, until their tokens expire: a token posted again is none.
     */
    private final Map<String, Instant> spent = new ConcurrentHashMap<>();

    /**
     * Keeps {@code request}; false if the device holds {@value #MAX} already, or holds or answered a request with the
     * same token id (a token posted again is one request).
     */
    synchronized boolean add(ChannelRequest request) {
        dropExpired();
        if (pending.size() >= MAX || spent.containsKey(request.tokenId())
                || pending.values().stream().anyMatch(held -> held.tokenId().equals(request.tokenId()))) {
            return false;
        }
        pending.put(request.id(), request);
        return true;
    }

    /** The unexpired requests for the person {@code subject}, oldest first. */
    List<ChannelRequest> of(String subject) {
        dropExpired();
        return pending.values().stream().filter(request -> request.subject().equals(subject))
                .sorted(Comparator.comparing(ChannelRequest::receivedAt)).toList();
    }

    /** Takes the request {@code id} if it is for {@code subject} and unexpired: it can be answered once. */
    Optional<ChannelRequest> take(UUID id, String subject) {
        ChannelRequest request = pending.get(id);
        if (request == null || !request.subject().equals(subject) || request.expired(Instant.now())) {
            return Optional.empty();
        }
        if (!pending.remove(id, request)) {
            return Optional.empty();
        }
        spent.put(request.tokenId(), request.expiresAt());
        return Optional.of(request);
    }

    /** Puts a taken request back (its answer could not be delivered). */
    void putBack(ChannelRequest request) {
        spent.remove(request.tokenId());
        pending.putIfAbsent(request.id(), request);
    }

    private void dropExpired() {
        Instant now = Instant.now();
        pending.values().removeIf(request -> request.expired(now));
        spent.values().removeIf(expiry -> !now.isBefore(expiry));
    }
}
