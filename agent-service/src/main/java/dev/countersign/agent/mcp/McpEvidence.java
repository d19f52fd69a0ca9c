package dev.countersign.agent.mcp;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.evidence.ReaderGrants;
import dev.countersign.agent.evidence.RequestEvidence;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.json.ParamsHash;
import dev.countersign.web.ProblemException;
import io.quarkus.oidc.client.OidcClient;
import io.quarkus.oidc.client.OidcClients;
import io.quarkus.oidc.client.Tokens;

/**
 * The evidence an MCP call's reads and proposals carry: the caller's MCP access token exchanged at the identity
 * provider (OAuth 2.0 Token Exchange, RFC 8693; quarkus-oidc-client's {@value #CLIENT} client) for a token of the
 * executor's MCP evidence audience that names the same person and tenant. The MCP token itself is never sent anywhere
 * (the MCP authorization specification forbids passing it through); the executor verifies the exchanged one as it
 * verifies the chat's evidence, and learns from its audience that the request came through MCP.
 * <p>
 * An exchanged token is kept in memory, by the MCP token it came from, until shortly before it expires, so a session's
 * calls cost one exchange; it is also what this person's reads get their reader grant from ({@link ReaderGrants}).
 * Limits: no exchange, no call (the identity provider down or refusing answers {@code upstream_unavailable}); the kept
 * tokens live as long as this process.
 */
@ApplicationScoped
public class McpEvidence {

    /** The quarkus-oidc-client client ({@code quarkus.oidc-client.mcp-evidence.*}). */
    static final String CLIENT = "mcp-evidence";
    /** An exchanged token this close to its expiry is exchanged again. */
    static final Duration RENEW_BEFORE = Duration.ofSeconds(30);
    static final Duration EXCHANGE_TIMEOUT = Duration.ofSeconds(10);

    private final OidcClients clients;
    private final ReaderGrants grants;
    /** By the SHA-256 of the MCP token, so no bearer token is kept as a key. */
    private final Cache<String, Tokens> exchanged = Caffeine.newBuilder().maximumSize(10_000)
            .expireAfterWrite(Duration.ofMinutes(15)).build();

    public McpEvidence(OidcClients clients, ReaderGrants grants) {
        this.clients = clients;
        this.grants = grants;
    }

    /** Evidence for {@code person}'s call made with {@code mcpToken}, exchanged (or kept from an earlier exchange). */
    RequestEvidence exchange(Person person, String mcpToken) {
        if (mcpToken == null) {
            throw new ProblemException(ErrorCode.UNAUTHENTICATED, "An MCP call needs the caller's bearer token.");
        }
        String key = ParamsHash.sha256Hex(mcpToken.getBytes(StandardCharsets.UTF_8));
        Tokens tokens = exchanged.getIfPresent(key);
        if (tokens == null || expiresSoon(tokens)) {
            tokens = exchangeNow(mcpToken);
            exchanged.put(key, tokens);
        }
        Long expiresAt = tokens.getAccessTokenExpiresAt();
        grants.signedIn(person, tokens.getAccessToken(),
                expiresAt == null ? Instant.now().plus(RENEW_BEFORE) : Instant.ofEpochSecond(expiresAt));
        return RequestEvidence.of(tokens.getAccessToken());
    }

    private Tokens exchangeNow(String mcpToken) {
        try {
            OidcClient client = clients.getClient(CLIENT);
            return client.getTokens(Map.of("subject_token", mcpToken)).await().atMost(EXCHANGE_TIMEOUT);
        } catch (RuntimeException e) {
            // Never the token; the failure's class and message only (quarkus-oidc-client's do not carry it).
            throw new ProblemException(ErrorCode.UPSTREAM_UNAVAILABLE, ("The identity provider did not exchange the"
                    + " MCP token for evidence (%s); nothing was read or proposed.")
                    .formatted(e.getClass().getSimpleName()));
        }
    }

    private static boolean expiresSoon(Tokens tokens) {
        Long expiresAt = tokens.getAccessTokenExpiresAt();
        return expiresAt == null || Instant.ofEpochSecond(expiresAt).minus(RENEW_BEFORE).isBefore(Instant.now());
    }
}
