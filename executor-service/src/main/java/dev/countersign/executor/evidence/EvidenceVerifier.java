package dev.countersign.executor.evidence;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.JsonWebToken;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.countersign.contracts.Identifiers;
import dev.countersign.contracts.KafkaHeaders;
import dev.countersign.contracts.Requesters;
import io.quarkus.oidc.Tenant;
import io.quarkus.oidc.TenantIdentityProvider;
import io.smallrye.mutiny.Uni;

/**
 * Verifies the evidence a proposal or conversation event carries ({@code KafkaHeaders.EVIDENCE}): a JWT of the identity
 * provider the HTTP side trusts, verified by quarkus-oidc like every token this service takes (the OIDC tenant
 * {@value #OIDC_TENANT}: the HTTP tenant's key source and issuer), for the agent's audience (a person: {@code sub} is
 * the event's user) or the integration audience (a service principal: the event's user is
 * {@code service:<client_id or azp>}), whose {@code tenant} claim is the event's tenant. Expiry and maximum age are
 * judged here at the record's {@link RecordTime}, with a small clock skew; quarkus-oidc's own check against the clock
 * is widened by the tenant's lifespan grace, which must cover the longest queue time (checked at start).
 * <p>
 * The OIDC tenant is never chosen for an HTTP request: no endpoint accepts an agent-audience or integration-audience
 * token because of it.
 * <p>
 * Limit: valid evidence proves that the person signed in to agent-service recently (within the token's lifetime and
 * {@code max-age}), not that they asked for this proposal. Whoever holds the token (the agent process, by design, for
 * the duration of the request; an attacker who compromised it, for the token's remaining lifetime) can attach it to any
 * proposal of that person in that tenant. It stops a compromised agent from acting in tenants and for users who are not
 * signed in to it, which is what the tenant and user of an event alone could not.
 * <p>
 * A token quarkus-oidc verified is kept, by its exact text, for {@code countersign.evidence.verified-token-reuse} (60
 * s; a budget of {@code verified-tokens-kilobytes}, about 4 MiB, counting four bytes per token character): the records
 * of one signed-in person's turns carry the same token, and verifying its signature and parsing it again was a sixth of
 * this service's CPU while staging 1,000 proposals/s. Its expiry, age, tenant and subject are judged for every record
 * as before (quarkus-oidc's own clock check is widened by a day here anyway). Limit: a signing key the identity
 * provider withdraws from its key set still verifies the tokens kept for up to that long; a refused token is not kept
 * (each is verified again).
 */
@ApplicationScoped
public class EvidenceVerifier {

    /** The OIDC tenant ({@code quarkus.oidc.evidence.*}) whose key source and audiences verify evidence. */
    public static final String OIDC_TENANT = "evidence";

    public static final String MISSING = "evidence_missing";
    public static final String INVALID = "evidence_invalid";
    public static final String EXPIRED = "evidence_expired";
    public static final String TOO_OLD = "evidence_too_old";
    public static final String WRONG_TENANT = "evidence_wrong_tenant";
    public static final String WRONG_USER = "evidence_wrong_user";
    /**
     * MCP evidence that does not name the MCP client ({@code act.client_id}): the identity provider lacks the mapper.
     */
    public static final String NO_MCP_CLIENT = "evidence_names_no_mcp_client";
    public static final String QUEUED_TOO_LONG = "record_queued_too_long";

    private final TenantIdentityProvider oidc;
    private final EvidenceConfig config;
    private final Cache<String, JsonWebToken> verified;

    public EvidenceVerifier(@Tenant(OIDC_TENANT) TenantIdentityProvider oidc, EvidenceConfig config,
            @ConfigProperty(name = "quarkus.oidc." + OIDC_TENANT + ".token.lifespan-grace") int lifespanGraceSeconds) {
        this.oidc = oidc;
        this.config = config;
        this.verified = Caffeine.newBuilder().maximumWeight(config.verifiedTokensKilobytes())
                .weigher((String token, JsonWebToken jwt) -> 1 + token.length() * 4 / 1024)
                .expireAfterWrite(config.verifiedTokenReuse()).build();
        Duration needed = config.maxQueueTime().plus(config.clockSkew());
        if (Duration.ofSeconds(lifespanGraceSeconds).compareTo(needed) < 0) {
            // A token live at a record's append time would be refused by the clock check before it is judged here.
            throw new IllegalStateException(("quarkus.oidc.%s.token.lifespan-grace (%d s) must be at least"
                    + " countersign.evidence.max-queue-time plus clock-skew (%d s)")
                    .formatted(OIDC_TENANT, lifespanGraceSeconds, needed.toSeconds()));
        }
    }

    /** Whether {@code token} is evidence for {@code userId} of {@code tenantId} at {@code time}. */
    public Uni<Evidence> verify(String token, String tenantId, String userId, RecordTime time) {
        Evidence.Rejected malformed = TokenChecks.shapeProblem(token);
        if (malformed != null) {
            return Uni.createFrom().item(malformed);
        }
        if (time.now().isAfter(time.reference().plus(config.maxQueueTime()))) {
            return Uni.createFrom().item(Evidence.rejected(QUEUED_TOO_LONG));
        }
        JsonWebToken kept = verified.getIfPresent(token);
        if (kept != null) {
            return Uni.createFrom().item(judge(kept, tenantId, userId, time));
        }
        return TokenChecks.verifiedBy(oidc, token, jwt -> {
            verified.put(token, jwt);
            return judge(jwt, tenantId, userId, time);
        });
    }

    private Evidence judge(JsonWebToken jwt, String tenantId, String userId, RecordTime time) {
        boolean service = Requesters.isService(userId);
        Set<String> audiences = jwt.getAudience();
        boolean throughMcp = !service && audiences != null && audiences.contains(config.mcpAudience());
        if (audiences == null
                || !(throughMcp || audiences.contains(service ? config.serviceAudience() : config.audience()))) {
            return Evidence.rejected(INVALID);
        }
        Instant reference = time.reference();
        Instant expiresAt = Instant.ofEpochSecond(jwt.getExpirationTime());
        if (!reference.isBefore(expiresAt.plus(config.clockSkew()))) {
            return Evidence.rejected(EXPIRED);
        }
        Instant issuedAt = Instant.ofEpochSecond(jwt.getIssuedAtTime());
        if (issuedAt.isAfter(reference.plus(config.clockSkew()))
                || issuedAt.isBefore(reference.minus(config.maxAge()))) {
            return Evidence.rejected(TOO_OLD);
        }
        if (!TokenChecks.namesTenant(jwt, tenantId)) {
            return Evidence.rejected(WRONG_TENANT);
        }
        String requester = service ? serviceRequester(jwt) : jwt.getSubject();
        // Equal to what the identity provider signed; whether the id is one PostgreSQL can store is staging's check.
        if (requester == null || !requester.equals(userId) || (!service && Requesters.isService(requester))) {
            return Evidence.rejected(WRONG_USER);
        }
        String mcpClient = throughMcp ? actingClient(jwt) : null;
        if (throughMcp && mcpClient == null) {
            return Evidence.rejected(NO_MCP_CLIENT);
        }
        return new Evidence.Verified(tenantId, requester, service, expiresAt, Set.of(), null, mcpClient);
    }

    /**
     * The client an exchanged token names as the acting party: {@code act.client_id} (RFC 8693 section 4.1), which the
     * identity provider writes (deploy/keycloak-extension for Keycloak); null when absent, not a printable id, or the
     * token's own {@code azp}.
     */
    private static String actingClient(JsonWebToken jwt) {
        Object act = jwt.getClaim("act");
        Object clientId = act instanceof JsonObject actor ? actor.get("client_id") : null;
        if (!(clientId instanceof JsonString id) || !Identifiers.isPrintableId(id.getString())) {
            return null;
        }
        // The exchanging client naming itself: an exchanged token exchanged again, not a person's MCP client.
        return id.getString().equals(jwt.getClaim("azp")) ? null : id.getString();
    }

    /** {@code service:<client id>}: the {@code client_id} claim (RFC 9068), else the authorised party. */
    private static String serviceRequester(JsonWebToken jwt) {
        Object clientId = jwt.getClaim("client_id");
        if (!(clientId instanceof String)) {
            clientId = jwt.getClaim("azp");
        }
        return clientId instanceof String id && Identifiers.isPrintableId(id) ? Requesters.service(id) : null;
    }
}
