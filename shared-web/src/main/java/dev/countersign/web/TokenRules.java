package dev.countersign.web;

import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The configuration {@link CurrentUser} reads a token against, read once at start: the audiences no token may combine
 * ({@value #EXCLUSIVE_AUDIENCES}) and the integrations' client ids ({@value CurrentUser#INTEGRATION_CLIENTS}). Kept out
 * of the request-scoped {@link CurrentUser}, whose configuration was looked up again for every request (4.5% of the
 * executor's event-loop CPU in the confirm benchmark's profile, session 26).
 */
@ApplicationScoped
public class TokenRules {

    /**
     * The audiences of which a token may carry one at most ({@link CurrentUser#spansExclusiveAudiences}): a token valid
     * for two of them is refused by every HTTP endpoint and, at the executor, as an approver's token.
     */
    public static final String EXCLUSIVE_AUDIENCES = "countersign.security.exclusive-audiences";

    private final Set<String> exclusiveAudiences;
    private final Set<String> integrationClients;

    public TokenRules(@ConfigProperty(name = EXCLUSIVE_AUDIENCES) Optional<Set<String>> exclusiveAudiences,
            @ConfigProperty(name = CurrentUser.INTEGRATION_CLIENTS) Optional<Set<String>> integrationClients) {
        this.exclusiveAudiences = Set.copyOf(exclusiveAudiences.orElse(Set.of()));
        this.integrationClients = Set.copyOf(integrationClients.orElse(Set.of()));
    }

    public Set<String> exclusiveAudiences() {
        return exclusiveAudiences;
    }

    public Set<String> integrationClients() {
        return integrationClients;
    }
}
