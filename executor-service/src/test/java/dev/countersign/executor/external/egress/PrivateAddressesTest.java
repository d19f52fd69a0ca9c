package dev.countersign.executor.external.egress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;

import org.junit.jupiter.api.Test;

/**
 * Where a webhook may not go unless the deployment allows private addresses (docs/approvals.md): the address classes,
 * and the gate's check of what a host resolves to.
 */
class PrivateAddressesTest {

    private static boolean isPrivate(String literal) throws UnknownHostException {
        return PrivateAddresses.isPrivate(InetAddress.getByName(literal));
    }

    @Test
    void loopbackPrivateLinkLocalSharedAndUniqueLocalAddressesArePrivate() throws UnknownHostException {
        for (String address : new String[]{"127.0.0.1", "127.8.9.10", "0.0.0.0", "10.1.2.3", "172.16.0.1",
                "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "100.127.255.254", "224.0.0.1",
                "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "::ffff:10.0.0.1", "::ffff:169.254.169.254"}) {
            assertThat(isPrivate(address)).as(address).isTrue();
        }
    }

    @Test
    void publicAddressesAreNot() throws UnknownHostException {
        for (String address : new String[]{"8.8.8.8", "172.32.0.1", "100.128.0.1", "100.63.255.255", "192.169.0.1",
                "2001:4860:4860::8888", "2a00:1450::1"}) {
            assertThat(isPrivate(address)).as(address).isFalse();
        }
    }

    @Test
    void theGateRefusesAHostThatResolvesToAPrivateAddressOrNotAtAll() {
        assertThatThrownBy(() -> ExternalGate.publicOnly(URI.create("http://localhost:9/x"), "localhost"))
                .isInstanceOf(RefusedDestination.class).hasMessage(
                        "the host of http://localhost:9 resolves to a private address");
        assertThatThrownBy(() -> ExternalGate.publicOnly(URI.create("https://169.254.169.254/latest"),
                "169.254.169.254")).isInstanceOf(RefusedDestination.class);
        assertThatThrownBy(() -> ExternalGate.publicOnly(URI.create("https://nowhere.invalid/x"), "nowhere.invalid"))
                .isInstanceOf(RefusedDestination.class).hasMessageContaining("does not resolve");
        assertThat(ExternalGate.publicOnly(URI.create("https://8.8.8.8/x"), "8.8.8.8")).isNull();
    }
}
