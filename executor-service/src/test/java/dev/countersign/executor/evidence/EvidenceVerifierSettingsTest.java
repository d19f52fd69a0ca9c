package dev.countersign.executor.evidence;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/**
 * The evidence tenant's lifespan grace must cover the longest queue time plus the clock skew: a shorter grace would
 * have quarkus-oidc refuse, by the clock, a token that was live when its record was appended.
 */
class EvidenceVerifierSettingsTest {

    private record Settings(String audience, String mcpAudience, String serviceAudience, Duration maxAge,
            Duration clockSkew,
            Duration maxQueueTime, Duration verifiedTokenReuse, int verifiedTokensKilobytes) implements EvidenceConfig {
    }

    private static EvidenceConfig config(Duration maxQueueTime, Duration clockSkew) {
        return new Settings("countersign-agent", "countersign-mcp-evidence", "countersign-integration",
                Duration.ofHours(1), clockSkew,
                maxQueueTime, Duration.ofSeconds(60), 4096);
    }

    @Test
    void aGraceShorterThanTheLongestQueueTimeAndSkewStopsTheStart() {
        EvidenceConfig aDay = config(Duration.ofDays(1), Duration.ofSeconds(30));

        assertThatCode(() -> new EvidenceVerifier(null, aDay, 86_430)).doesNotThrowAnyException();
        assertThatThrownBy(() -> new EvidenceVerifier(null, aDay, 86_429))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("quarkus.oidc.evidence.token.lifespan-grace")
                .hasMessageContaining("86430");
    }
}
