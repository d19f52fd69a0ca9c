package dev.countersign.executor.evidence;

import java.util.function.Function;

import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.web.CurrentUser;
import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.oidc.TenantIdentityProvider;
import io.smallrye.mutiny.Uni;

/**
 * What the two verifiers of tokens on Kafka share ({@link EvidenceVerifier}, {@link ApproverVerifier}): the token's
 * shape, its verification by quarkus-oidc, and the tenant claim; the shape and the tenant claim also a second-device
 * approval's ({@code ApprovalTokens}).
 */
public final class TokenChecks {

    /** Longer is no token an identity provider issues: refused before it is parsed. */
    public static final int MAX_TOKEN_LENGTH = 16_384;

    private TokenChecks() {
    }

    /** {@code evidence_missing} for no token, {@code evidence_invalid} for one too long to be one; else null. */
    static Evidence.Rejected shapeProblem(String token) {
        if (token == null || token.isBlank()) {
            return Evidence.rejected(EvidenceVerifier.MISSING);
        }
        return token.length() > MAX_TOKEN_LENGTH ? Evidence.rejected(EvidenceVerifier.INVALID) : null;
    }

    /**
     * {@code token} verified by {@code oidc} and then judged by {@code judge}; {@code evidence_invalid} if quarkus-oidc
     * refuses it (its failure is not logged or passed on: its message may quote the token's content).
     */
    static Uni<Evidence> verifiedBy(TenantIdentityProvider oidc, String token, Function<JsonWebToken, Evidence> judge) {
        return oidc.authenticate(new AccessTokenCredential(token))
                .map(identity -> judge.apply((JsonWebToken) identity.getPrincipal()))
                .onFailure().recoverWithItem(() -> Evidence.rejected(EvidenceVerifier.INVALID));
    }

    /** Whether the token's {@code tenant} claim is the string {@code tenantId}. */
    public static boolean namesTenant(JsonWebToken jwt, String tenantId) {
        return jwt.getClaim(CurrentUser.TENANT_CLAIM) instanceof String claimed && claimed.equals(tenantId);
    }
}
