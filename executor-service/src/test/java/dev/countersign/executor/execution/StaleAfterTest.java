package dev.countersign.executor.execution;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.countersign.executor.external.ExternalConfig;

/** The recovery must not judge a call lost while it may still be running: start-up refuses such a configuration. */
class StaleAfterTest {

    private static ExternalConfig config(Duration staleAfter, Duration mailTimeout, Duration ticketTimeout,
            int attempts) {
        return new ExternalConfig() {

            @Override
            public Mail mail() {
                return new Mail() {

                    @Override
                    public boolean enabled() {
                        return true;
                    }

                    @Override
                    public String from() {
                        return "countersign@localhost";
                    }

                    @Override
                    public Duration timeout() {
                        return mailTimeout;
                    }
                };
            }

            @Override
            public Ticket ticket() {
                return new Ticket() {

                    @Override
                    public Optional<String> url() {
                        return Optional.of("http://127.0.0.1/tickets");
                    }

                    @Override
                    public Optional<String> apiToken() {
                        return Optional.empty();
                    }

                    @Override
                    public Duration timeout() {
                        return ticketTimeout;
                    }

                    @Override
                    public int attempts() {
                        return attempts;
                    }
                };
            }

            @Override
            public Duration staleAfter() {
                return staleAfter;
            }

            @Override
            public Duration recoveryInterval() {
                return Duration.ofSeconds(30);
            }
        };
    }

    @Test
    void theDefaultsLeaveAMargin() {
        // 3 ticket calls of 10 s with two back-offs of at most 2 s: 34 s, plus 5 s, well under 2 min.
        assertThatCode(() -> ExternalRecovery.requireStaleAfterLongerThanAnyCall(config(Duration.ofMinutes(2),
                Duration.ofSeconds(10), Duration.ofSeconds(10), 3))).doesNotThrowAnyException();
    }

    @Test
    void aStaleTimeWithinTheLongestCallStopsTheStart() {
        assertThatThrownBy(() -> ExternalRecovery.requireStaleAfterLongerThanAnyCall(config(Duration.ofSeconds(38),
                Duration.ofSeconds(10), Duration.ofSeconds(10), 3))).hasMessageContaining("stale-after");
        assertThatThrownBy(() -> ExternalRecovery.requireStaleAfterLongerThanAnyCall(config(Duration.ofSeconds(60),
                Duration.ofSeconds(60), Duration.ofSeconds(1), 1))).hasMessageContaining("stale-after");
    }
}
