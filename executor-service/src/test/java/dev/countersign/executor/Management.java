package dev.countersign.executor;

import io.quarkus.test.common.http.TestHTTPResourceManager;

/** URLs on the management interface (its own port in tests too): where /q/ lives, not on the public port. */
final class Management {

    private Management() {
    }

    /** {@code path} under the management root, e.g. {@code url("/metrics")} for /q/metrics. */
    static String url(String path) {
        String root = TestHTTPResourceManager.getManagementUri().replaceAll("/+$", "");
        return (root.endsWith("/q") ? root : root + "/q") + path;
    }
}
