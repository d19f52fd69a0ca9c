package dev.countersign.executor.evidence;

import java.time.Duration;

import jakarta.validation.constraints.Min;

import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * How the evidence on proposals and conversation events is judged ({@link EvidenceVerifier}). Its key source and issuer
 * are the HTTP side's (the OIDC tenant {@value EvidenceVerifier#OIDC_TENANT}, configured from the default tenant's
 * properties): one identity provider.
 */
@ConfigMapping(prefix = "countersign.evidence")
public interface EvidenceConfig {

    /** The audience of a person's evidence: the token they gave agent-service. */
    @WithDefault("countersign-agent")
    String audience();

    /**
     * The audience of a person's evidence from an MCP call: their MCP client's token exchanged at the identity provider
     * by agent-service (docs/mcp.md). What it proposes applies on arrival only for a kind the tenant opted in.
     */
    @WithDefault("countersign-mcp-evidence")
    String mcpAudience();

    /** The audience of an integration's own token when it proposes as a service principal. */
    @WithDefault("countersign-integration")
    String serviceAudience();

    /** The oldest evidence accepted: its {@code iat} at most this long before the record's reference time. */
    @WithDefault("PT1H")
    @DurationMin(seconds = 1)
    Duration maxAge();

    /** Clock difference tolerated between the identity provider, the broker and this service. */
    @WithDefault("PT30S")
    @DurationMin(seconds = 0)
    @DurationMax(minutes = 5)
    Duration clockSkew();

    /**
     * The longest a record may have waited on the topic (reference time to now) and still be judged by its append time:
     * proposals queued through an outage up to this long are still staged; older ones are rejected.
     */
    @WithDefault("P1D")
    @DurationMin(seconds = 1)
    Duration maxQueueTime();

    /**
     * How long a token quarkus-oidc verified (signature, issuer, audience) is taken again without verifying it again,
     * by its exact text ({@link EvidenceVerifier}); PT0S verifies every record's token. Its times, tenant and subject
     * are still judged for every record.
     */
    @WithDefault("PT60S")
    @DurationMin(seconds = 0)
    @DurationMax(minutes = 5)
    Duration verifiedTokenReuse();

    /**
     * A budget for the verified tokens kept for {@link #verifiedTokenReuse()}, in kilobytes, each token counted as one
     * kilobyte plus four bytes per character (its text as the key, the principal's copy, its parsed claims): an
     * estimate of their memory, not a measured bound.
     */
    @WithDefault("4096")
    @Min(0)
    int verifiedTokensKilobytes();
}
