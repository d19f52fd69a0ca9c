package dev.countersign.executor.seconddevice;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.executor.access.Principal;
import dev.countersign.executor.evidence.TokenChecks;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.TokenRules;
import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.oidc.Tenant;
import io.quarkus.oidc.TenantIdentityProvider;
import io.smallrye.mutiny.Uni;

/**
 * Verifies the access token a second-device approval came with, by quarkus-oidc like every token this service takes:
 * the OIDC tenant {@value #OIDC_TENANT} (the same key source, issuer and maximum age as the default tenant, and only
 * the audience of CIBA approvals, {@code countersign-second-device-approval}, which no HTTP endpoint accepts; a token
 * also valid for another of the executor's exclusive audiences is refused, as over HTTP), then against the request it
 * answers: its subject must be the person the request was sent to, its {@code tenant} claim the request's tenant, and
 * its {@code azp} the executor's CIBA client. The person's groups are the token's, as the identity provider issued them
 * when they approved: the decision rule judges them as it judges any token's.
 * <p>
 * The token comes from the provider's token endpoint, in the answer to the executor's own poll for that request, never
 * from anyone else; the checks here still hold if that answer were wrong. Its {@code jti} makes it single use
 * ({@code approver_token_uses}, in the decision's transaction).
 */
@ApplicationScoped
public class ApprovalTokens {

    /** The OIDC tenant ({@code quarkus.oidc.second-device.*}) that verifies CIBA approvals' tokens. */
    public static final String OIDC_TENANT = "second-device";

    /** What {@code approver_token_uses} keeps of a token id. */
    private static final int MAX_TOKEN_ID_LENGTH = 256;

    private final TenantIdentityProvider oidc;
    private final SecondDeviceConfig config;
    private final Set<String> exclusiveAudiences;

    public ApprovalTokens(@Tenant(OIDC_TENANT) TenantIdentityProvider oidc, SecondDeviceConfig config,
            @ConfigProperty(name = TokenRules.EXCLUSIVE_AUDIENCES) Optional<Set<String>> exclusiveAudiences) {
        this.oidc = oidc;
        this.config = config;
        this.exclusiveAudiences = exclusiveAudiences.orElse(Set.of());
    }

    /** Who approved, and the token's id and expiry; or why the token is not taken for {@code request}. */
    public sealed interface Checked {
    }

    public record Approver(Principal principal, String tokenId, Instant expiresAt) implements Checked {
    }

    public record Refused(String why) implements Checked {
    }

    /**
     * Verified by quarkus-oidc, tried three times (after about half a second, then about a second: a key set the
     * provider did not answer for is no reason to lose an approval it issues once), then judged.
     */
    public Uni<Checked> check(String accessToken, SecondDeviceRequest request) {
        if (accessToken == null || accessToken.length() > TokenChecks.MAX_TOKEN_LENGTH) {
            return Uni.createFrom().item(new Refused("the token did not verify"));
        }
        return oidc.authenticate(new AccessTokenCredential(accessToken))
                .onFailure().retry().withBackOff(Duration.ofMillis(500)).atMost(2)
                .map(identity -> judge((JsonWebToken) identity.getPrincipal(), request))
                // Its message may quote the token's content: neither logged nor passed on.
                .onFailure().recoverWithItem(() -> new Refused("the token did not verify"));
    }

    private Checked judge(JsonWebToken jwt, SecondDeviceRequest request) {
        if (CurrentUser.spansExclusiveAudiences(jwt, exclusiveAudiences)) {
            return new Refused("the token is also valid for another use");
        }
        if (!request.userId().equals(jwt.getSubject())) {
            return new Refused("the token names another person");
        }
        if (!TokenChecks.namesTenant(jwt, request.tenantId())) {
            return new Refused("the token names another tenant");
        }
        if (!(jwt.getClaim("azp") instanceof String client) || !client.equals(config.clientId())) {
            return new Refused("the token was issued to another client");
        }
        if (jwt.getTokenID() == null || jwt.getTokenID().isBlank()
                || jwt.getTokenID().length() > MAX_TOKEN_ID_LENGTH) {
            return new Refused("the token has no id");
        }
        Set<String> groups = jwt.getGroups() == null ? Set.of() : jwt.getGroups();
        return new Approver(Principal.of(jwt.getSubject(), groups, false), jwt.getTokenID(),
                Instant.ofEpochSecond(jwt.getExpirationTime()));
    }
}
