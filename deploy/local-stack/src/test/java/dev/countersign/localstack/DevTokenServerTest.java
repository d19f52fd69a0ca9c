package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The dev token endpoint answers only requests addressed to this machine's loopback (no DNS rebinding). */
class DevTokenServerTest {

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "localhost:8079", "127.0.0.1:8079", "[::1]:8079"})
    void loopbackHostsAreServed(String host) {
        assertThat(DevTokenServer.isLoopbackHost(host)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"attacker.example:8079", "localhost.attacker.example", "127.0.0.1.nip.io:8079", ""})
    void anyOtherHostIsRefused(String host) {
        assertThat(DevTokenServer.isLoopbackHost(host)).isFalse();
    }
}
