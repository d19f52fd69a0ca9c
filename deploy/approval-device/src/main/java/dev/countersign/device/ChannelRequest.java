package dev.countersign.device;

import java.time.Instant;
import java.util.UUID;

/**
 * One backchannel authentication request Keycloak's HTTP authentication channel posted: for the person {@code subject}
 * (the {@code sub} of the channel's token, which Keycloak signed) and {@code loginHint} (their username), showing
 * {@code code} (the CIBA binding message). {@code callbackToken} is the bearer token Keycloak gave for the answer; it
 * stays in this process, never reaches a browser and is never logged.
 */
record ChannelRequest(UUID id, String subject, String loginHint, String code, String callbackToken, String tokenId,
        Instant receivedAt, Instant expiresAt) {

    boolean expired(Instant now) {
        return !now.isBefore(expiresAt);
    }

    @Override
    public String toString() {
        return "ChannelRequest[id=%s, subject=%s, loginHint=%s, code=%s]".formatted(id, subject, loginHint, code);
    }
}
