package dev.countersign.executor.execution;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.executor.external.ExternalConfig;
import dev.countersign.executor.kind.ExternalKind;

/** The recovery must not judge a call lost while it may still be running: start-up refuses such a configuration. */
class StaleAfterTest {

    private record Settings(Duration staleAfter, Duration recoveryInterval, boolean webhookPrivateAddresses)
            implements
                ExternalConfig {
    }

    private static ExternalConfig staleAfter(Duration staleAfter) {
        return new Settings(staleAfter, Duration.ofSeconds(30), false);
    }

    /**
     * An e-mail kind (one call of {@code mailTimeout}) and a ticket kind ({@code attempts} of {@code ticketTimeout}).
     */
    private static List<ExternalKind> kinds(Duration mailTimeout, Duration ticketTimeout, int attempts) {
        return List.of(ExecutorRegistryTest.external(ShippedKinds.SEND_MAIL, true, mailTimeout, 1),
                ExecutorRegistryTest.external(ShippedKinds.CREATE_TICKET, true,
                        ticketTimeout.multipliedBy(attempts), attempts));
    }

    @Test
    void theDefaultsLeaveAMargin() {
        // 3 ticket calls of 10 s with two back-offs of at most 2 s: 34 s, plus 5 s, well under 2 min.
        assertThatCode(() -> ExternalRecovery.requireStaleAfterLongerThanAnyCall(staleAfter(Duration.ofMinutes(2)),
                kinds(Duration.ofSeconds(10), Duration.ofSeconds(10), 3))).doesNotThrowAnyException();
    }

    @Test
    void aStaleTimeWithinTheLongestCallStopsTheStart() {
        // 34 s of ticket calls (with the back-offs) plus the 5 s margin: 38 s is not enough, 39 s is.
        assertThatThrownBy(() -> ExternalRecovery.requireStaleAfterLongerThanAnyCall(staleAfter(Duration.ofSeconds(38)),
                kinds(Duration.ofSeconds(10), Duration.ofSeconds(10), 3))).hasMessageContaining("stale-after");
        assertThatCode(() -> ExternalRecovery.requireStaleAfterLongerThanAnyCall(staleAfter(Duration.ofSeconds(39)),
                kinds(Duration.ofSeconds(10), Duration.ofSeconds(10), 3))).doesNotThrowAnyException();
        assertThatThrownBy(() -> ExternalRecovery.requireStaleAfterLongerThanAnyCall(staleAfter(Duration.ofSeconds(60)),
                kinds(Duration.ofSeconds(60), Duration.ofSeconds(1), 1))).hasMessageContaining("stale-after");
    }
}
