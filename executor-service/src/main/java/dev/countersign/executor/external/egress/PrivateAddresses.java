package dev.countersign.executor.external.egress;

import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * The addresses a webhook may not reach unless the deployment allows it
 * ({@code countersign.external.webhook-private-addresses}): loopback, unspecified, link-local (cloud metadata services
 * live at 169.254.169.254), private (RFC 1918, IPv6 unique local fc00::/7), shared address space (100.64.0.0/10) and
 * multicast, IPv4-mapped IPv6 addresses included.
 */
final class PrivateAddresses {

    private PrivateAddresses() {
    }

    static boolean isPrivate(InetAddress address) {
        if (address.isLoopbackAddress() || address.isAnyLocalAddress() || address.isLinkLocalAddress()
                || address.isSiteLocalAddress() || address.isMulticastAddress()) {
            return true;
        }
        byte[] bytes = address.getAddress();
        if (address instanceof Inet6Address) {
            return (bytes[0] & 0xfe) == 0xfc;
        }
        return (bytes[0] & 0xff) == 100 && (bytes[1] & 0xc0) == 64;
    }
}
