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

    private static EvidenceConfig config(Duration maxQueueTime, Duration clockSkew) {
        return new EvidenceConfig() {

            @Override
            public String audience() {
                return "countersign-agent";
            }

            @Override
            public String serviceAudience() {
                return "countersign-integration";
            }

            @Override
            public Duration maxAge() {
                return Duration.ofHours(1);
            }

            @Override
            public Duration clockSkew() {
                return clockSkew;
            }

            @Override
            public Duration maxQueueTime() {
                return maxQueueTime;
            }

            @Override
            public Duration verifiedTokenReuse() {
                return Duration.ofSeconds(60);
            }

            @Override
            public int verifiedTokensKilobytes() {
                return 4096;
            }
        };
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
