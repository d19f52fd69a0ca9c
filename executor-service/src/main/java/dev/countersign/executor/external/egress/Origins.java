package dev.countersign.executor.external.egress;

import java.net.URI;
import java.util.List;

/** What counts as the same origin, for the gate's HTTP clients and the tenants' webhook allow-lists: one rule. */
public final class Origins {

    private Origins() {
    }

    /** Whether {@code url}'s origin is one of {@code origins}. */
    public static boolean allows(List<String> origins, URI url) {
        return origins.stream().anyMatch(origin -> same(URI.create(origin), url));
    }

    /** Scheme, host and port equal (a port left out is the scheme's default); a URI without a host matches nothing. */
    public static boolean same(URI allowed, URI requested) {
        return allowed.getScheme() != null && allowed.getHost() != null && requested.getHost() != null
                && allowed.getScheme().equalsIgnoreCase(requested.getScheme())
                && allowed.getHost().equalsIgnoreCase(requested.getHost()) && port(allowed) == port(requested);
    }

    /** {@code url}'s origin: its scheme and authority, without path, query or fragment. */
    public static URI of(URI url) {
        return URI.create(url.getScheme() + "://" + url.getRawAuthority());
    }

    private static int port(URI uri) {
        if (uri.getPort() != -1) {
            return uri.getPort();
        }
        return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : "http".equalsIgnoreCase(uri.getScheme()) ? 80 : -1;
    }
}
