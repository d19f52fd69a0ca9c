package dev.countersign.web;

import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The configuration {@link CurrentUser} reads a token against, read once at start: the audience this service refuses
 * ({@code countersign.security.refused-audience}) and the integrations' client ids
 * ({@value CurrentUser#INTEGRATION_CLIENTS}). Kept out of the request-scoped {@link CurrentUser}, whose configuration
 * was looked up again for every request (4.5% of the executor's event-loop CPU in the confirm benchmark's profile,
 * session 26).
 */
@ApplicationScoped
public class TokenRules {

    private final Optional<String> refusedAudience;
    private final Set<String> integrationClients;

    public TokenRules(@ConfigProperty(name = "countersign.security.refused-audience") Optional<String> refusedAudience,
            @ConfigProperty(name = CurrentUser.INTEGRATION_CLIENTS) Optional<Set<String>> integrationClients) {
        this.refusedAudience = refusedAudience;
        this.integrationClients = Set.copyOf(integrationClients.orElse(Set.of()));
    }

    public Optional<String> refusedAudience() {
        return refusedAudience;
    }

    public Set<String> integrationClients() {
        return integrationClients;
    }
}
