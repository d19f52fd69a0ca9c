package dev.countersign.executor.evidence;

import java.time.Instant;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.contracts.Identifiers;
import dev.countersign.contracts.KafkaHeaders;
import dev.countersign.contracts.Requesters;
import dev.countersign.web.CurrentUser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;

/**
 * Verifies the evidence a proposal or conversation event carries ({@code KafkaHeaders.EVIDENCE}): a JWT of the identity
 * provider the HTTP side trusts (same key), with the configured issuer, for the agent's audience (a person: {@code sub}
 * is the event's user) or the integration audience (a service principal: the event's user is
 * {@code service:<client_id or azp>}), whose {@code tenant} claim is the event's tenant. Expiry and maximum age are
 * judged at the record's {@link RecordTime}, with a small clock skew.
 * <p>
 * This is a parser of its own ({@code JWTParser} with its own context), not an HTTP authentication mechanism: no
 * endpoint accepts an agent-audience or integration-audience token because of it.
 * <p>
 * Limit: valid evidence proves that the person signed in to agent-service recently (within the token's lifetime and
 * {@code max-age}), not that they asked for this proposal. Whoever holds the token (the agent process, by design, for
 * the duration of the request; an attacker who compromised it, for the token's remaining lifetime) can attach it to any
 * proposal of that person in that tenant. It stops a compromised agent from acting in tenants and for users who are not
 * signed in to it, which is what the tenant and user of an event alone could not.
 */
@ApplicationScoped
public class EvidenceVerifier {

    public static final String MISSING = "evidence_missing";
    public static final String INVALID = "evidence_invalid";
    public static final String EXPIRED = "evidence_expired";
    public static final String TOO_OLD = "evidence_too_old";
    public static final String WRONG_TENANT = "evidence_wrong_tenant";
    public static final String WRONG_USER = "evidence_wrong_user";
    public static final String QUEUED_TOO_LONG = "record_queued_too_long";

    private static final int MAX_TOKEN_LENGTH = 16_384;

    private final JWTParser parser;
    private final JWTAuthContextInfo personContext;
    private final JWTAuthContextInfo serviceContext;
    private final EvidenceConfig config;

    public EvidenceVerifier(JWTParser parser, JWTAuthContextInfo httpContext, EvidenceConfig config) {
        this.parser = parser;
        this.config = config;
        this.personContext = context(httpContext, config, config.audience());
        this.serviceContext = context(httpContext, config, config.serviceAudience());
    }

    /**
     * The HTTP side's key settings, with this verifier's issuer and audience. Expiry is checked here against the record
     * time, so the parser only refuses tokens expired longer ago than the longest queue time; the HTTP side's token age
     * (judged against the clock) does not apply.
     */
    private static JWTAuthContextInfo context(JWTAuthContextInfo http, EvidenceConfig config, String audience) {
        JWTAuthContextInfo context = new JWTAuthContextInfo(http);
        context.setIssuedBy(config.issuer());
        context.setExpectedAudience(Set.of(audience));
        int queueSeconds = (int) Math.min(Integer.MAX_VALUE,
                config.maxQueueTime().plus(config.clockSkew()).toSeconds());
        context.setExpGracePeriodSecs(queueSeconds);
        context.setClockSkew(queueSeconds);
        context.setTokenAge(null);
        return context;
    }

    /** Whether {@code token} is evidence for {@code userId} of {@code tenantId} at {@code time}. */
    public Evidence verify(String token, String tenantId, String userId, RecordTime time) {
        if (token == null || token.isBlank()) {
            return Evidence.rejected(MISSING);
        }
        if (token.length() > MAX_TOKEN_LENGTH) {
            return Evidence.rejected(INVALID);
        }
        if (time.now().isAfter(time.reference().plus(config.maxQueueTime()))) {
            return Evidence.rejected(QUEUED_TOO_LONG);
        }
        boolean service = Requesters.isService(userId);
        JsonWebToken jwt;
        try {
            jwt = parser.parse(token, service ? serviceContext : personContext);
        } catch (ParseException | RuntimeException e) {
            // The exception is not logged or passed on: its message may quote the token's content.
            return Evidence.rejected(INVALID);
        }
        Instant reference = time.reference();
        Instant expiresAt = Instant.ofEpochSecond(jwt.getExpirationTime());
        if (!reference.isBefore(expiresAt.plus(config.clockSkew()))) {
            return Evidence.rejected(EXPIRED);
        }
        if (jwt.getClaim("iat") == null) {
            // The parser does not require iat (token age is judged here): without it the age is unknown.
            return Evidence.rejected(TOO_OLD);
        }
        Instant issuedAt = Instant.ofEpochSecond(jwt.getIssuedAtTime());
        if (issuedAt.isAfter(reference.plus(config.clockSkew()))
                || issuedAt.isBefore(reference.minus(config.maxAge()))) {
            return Evidence.rejected(TOO_OLD);
        }
        Object tenant = jwt.getClaim(CurrentUser.TENANT_CLAIM);
        if (!(tenant instanceof String claimed) || !claimed.equals(tenantId)) {
            return Evidence.rejected(WRONG_TENANT);
        }
        String requester = service ? serviceRequester(jwt) : jwt.getSubject();
        // Equal to what the identity provider signed; whether the id is one PostgreSQL can store is staging's check.
        if (requester == null || !requester.equals(userId) || (!service && Requesters.isService(requester))) {
            return Evidence.rejected(WRONG_USER);
        }
        return new Evidence.Verified(tenantId, requester, service, expiresAt, Set.of(), null);
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
