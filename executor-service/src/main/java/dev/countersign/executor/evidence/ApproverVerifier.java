package dev.countersign.executor.evidence;

import java.time.Instant;
import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.contracts.KafkaHeaders;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.TokenRules;
import io.quarkus.oidc.TenantIdentityProvider;
import io.smallrye.mutiny.Uni;

/**
 * Verifies the approver token a decision on the decisions topic may carry ({@code KafkaHeaders.APPROVER}) by the very
 * verifier that takes bearer tokens over HTTP: quarkus-oidc's default tenant (its key source, issuer, the executor's
 * audience, token age), through {@link TenantIdentityProvider}. As over HTTP, a token also valid for the refused
 * audience (the agent's) is refused, and the tenant claim and subject must be the decision's tenant and user. Then the
 * subject is the approver. Its {@code jti} makes it single use on the topic ({@code SingleUseApprovals}).
 * <p>
 * Limit: judged at the time of consumption, like an HTTP request; a decision that waited on the topic longer than the
 * approver token lives is refused, which is the safe way to fail (the decisions topic is kept one hour).
 */
@ApplicationScoped
public class ApproverVerifier {

    private final TenantIdentityProvider oidc;
    private final Set<String> exclusiveAudiences;
    private final Set<String> integrationClients;

    public ApproverVerifier(TenantIdentityProvider oidc,
            @ConfigProperty(name = TokenRules.EXCLUSIVE_AUDIENCES) Optional<Set<String>> exclusiveAudiences,
            @ConfigProperty(name = CurrentUser.INTEGRATION_CLIENTS) Optional<Set<String>> integrationClients) {
        this.oidc = oidc;
        this.exclusiveAudiences = exclusiveAudiences.orElse(Set.of());
        this.integrationClients = integrationClients.orElse(Set.of());
    }

    public Uni<Evidence> verify(String token, String tenantId, String userId) {
        Evidence.Rejected malformed = TokenChecks.shapeProblem(token);
        if (malformed != null) {
            return Uni.createFrom().item(malformed);
        }
        return TokenChecks.verifiedBy(oidc, token, jwt -> judge(jwt, tenantId, userId));
    }

    private Evidence judge(JsonWebToken jwt, String tenantId, String userId) {
        if (CurrentUser.spansExclusiveAudiences(jwt, exclusiveAudiences)) {
            return Evidence.rejected(EvidenceVerifier.INVALID);
        }
        if (!TokenChecks.namesTenant(jwt, tenantId)) {
            return Evidence.rejected(EvidenceVerifier.WRONG_TENANT);
        }
        if (jwt.getSubject() == null || !jwt.getSubject().equals(userId)) {
            return Evidence.rejected(EvidenceVerifier.WRONG_USER);
        }
        return new Evidence.Verified(tenantId, userId, CurrentUser.isServiceToken(jwt, integrationClients),
                Instant.ofEpochSecond(jwt.getExpirationTime()), jwt.getGroups() == null ? Set.of() : jwt.getGroups(),
                jwt.getTokenID(), null);
    }
}
