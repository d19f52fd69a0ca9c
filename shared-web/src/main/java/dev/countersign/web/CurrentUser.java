package dev.countersign.web;

import java.util.Set;

import jakarta.enterprise.context.RequestScoped;

import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Identifiers;
import io.quarkus.security.UnauthorizedException;

/**
 * The caller, from the verified bearer token: the tenant from the {@code tenant} claim, the user from {@code sub}. Both
 * must be 1 to 128 printable characters; a token without them, or valid for two of the audiences no token may combine
 * ({@value TokenRules#EXCLUSIVE_AUDIENCES}), is unauthenticated.
 */
@RequestScoped
public class CurrentUser {

    public static final String TENANT_CLAIM = "tenant";

    /** The property naming the integrations' client ids, whose tokens are never persons ({@link #isServiceToken}). */
    public static final String INTEGRATION_CLIENTS = "countersign.security.integration-clients";

    private final JsonWebToken token;
    private final Set<String> exclusiveAudiences;
    private final Set<String> integrationClients;

    public CurrentUser(JsonWebToken token, TokenRules rules) {
        this.token = token;
        this.exclusiveAudiences = rules.exclusiveAudiences();
        this.integrationClients = rules.integrationClients();
    }

    public String tenantId() {
        checkAudience();
        // A claim of another JSON type (a number, an object) is no tenant either.
        Object tenant = token.getClaim(TENANT_CLAIM);
        if (!(tenant instanceof String name) || !Identifiers.isPrintableId(name)) {
            throw new UnauthorizedException("the bearer token names no valid tenant");
        }
        return name;
    }

    public String userId() {
        checkAudience();
        String subject = token.getSubject();
        if (subject == null || !Identifiers.isPrintableId(subject)) {
            throw new UnauthorizedException("the bearer token names no valid user");
        }
        return subject;
    }

    /**
     * Whether the caller is a service principal (an integration's client-credentials token), never a person, whatever
     * groups its token carries ({@link #isServiceToken}).
     */
    public boolean isService() {
        checkAudience();
        return isServiceToken(token, integrationClients);
    }

    /**
     * A client-credentials token: issued to one of the configured integration clients ({@value #INTEGRATION_CLIENTS},
     * by {@code client_id} or {@code azp}: the reliable test, since a person signs in through other clients); or,
     * whatever is configured, a subject that is its own client (RFC 9068's advice for that grant) or a service account
     * named for one ({@code service-account-<client>}, Keycloak's name, in {@code sub} or {@code preferred_username}).
     * Limit: without the configured list, an identity provider that names service accounts otherwise (a UUID subject
     * and no username claim) is not recognised, and its service tokens pass as persons.
     */
    public static boolean isServiceToken(JsonWebToken jwt, Set<String> integrationClients) {
        String subject = jwt.getSubject();
        Object clientId = jwt.getClaim("client_id");
        Object authorisedParty = jwt.getClaim("azp");
        Object username = jwt.getClaim("preferred_username");
        // Immutable sets refuse contains(null): each claim is looked up only when it is a string.
        return clientId instanceof String client && integrationClients.contains(client)
                || authorisedParty instanceof String party && integrationClients.contains(party)
                || subject != null && (subject.equals(clientId) || subject.equals(authorisedParty)
                        || subject.startsWith(SERVICE_ACCOUNT_PREFIX)
                        || username instanceof String name && name.startsWith(SERVICE_ACCOUNT_PREFIX));
    }

    private static final String SERVICE_ACCOUNT_PREFIX = "service-account-";

    /** The token's groups (none: empty). */
    public Set<String> groups() {
        checkAudience();
        return token.getGroups() == null ? Set.of() : token.getGroups();
    }

    /** Whether the token's groups include {@code group}. */
    public boolean hasGroup(String group) {
        checkAudience();
        return token.getGroups() != null && token.getGroups().contains(group);
    }

    /** Refuses with 403 problem+json unless the token's groups include {@code group}. */
    public void requireGroup(String group) {
        if (!hasGroup(group)) {
            throw new ProblemException(ErrorCode.FORBIDDEN,
                    "This needs the '%s' role; ask your administrator.".formatted(group));
        }
    }

    private void checkAudience() {
        if (spansExclusiveAudiences(token, exclusiveAudiences)) {
            throw new UnauthorizedException("the bearer token is also valid for another service");
        }
    }

    /**
     * Whether {@code jwt} carries more than one of {@code exclusive} ({@value TokenRules#EXCLUSIVE_AUDIENCES}): such a
     * token is valid for another use too (the agent's chat and its MCP server; the executor's API, the agent's evidence
     * and an MCP call's evidence), and this service takes it from no channel. Limit: it holds against a token the
     * identity provider issued for two of them; one it issued for a single audience is what the audience checks judge.
     */
    public static boolean spansExclusiveAudiences(JsonWebToken jwt, Set<String> exclusive) {
        Set<String> audiences = jwt.getAudience();
        return audiences != null && audiences.stream().filter(exclusive::contains).count() > 1;
    }
}
