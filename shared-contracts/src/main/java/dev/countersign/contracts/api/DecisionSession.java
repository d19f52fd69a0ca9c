package dev.countersign.contracts.api;

import java.util.List;

/**
 * {@code GET /api/session} on executor-service: the decision page's signed-in person.
 *
 * @param groups
 *            for showing and hiding controls only; every endpoint checks the groups itself
 * @param csrfToken
 *            sent back in the {@code X-CSRF-TOKEN} header of every change the page makes
 * @param logoutPath
 *            where signing out starts (the identity provider's session ends too)
 * @param chatUrl
 *            where the chat lives, for a link back; null when not configured
 */
public record DecisionSession(String tenant, String user, List<String> groups, String csrfToken, String logoutPath,
        String chatUrl) {

    @Override
    public String toString() {
        return "DecisionSession[tenant=%s, user=%s, csrfToken=<redacted>]".formatted(tenant, user);
    }
}
