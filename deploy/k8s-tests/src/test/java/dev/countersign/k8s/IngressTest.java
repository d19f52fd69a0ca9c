package dev.countersign.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * One origin: /api/actions to executor-service, the rest of the API and the UI to agent-service, /q/ nowhere. Paths are
 * matched as the Ingress API defines it: Exact before Prefix, the longest prefix wins, prefixes match whole segments.
 */
@ParameterizedClass(name = "overlay {0}")
@FieldSource("dev.countersign.k8s.Manifests#OVERLAYS")
class IngressTest {

    private final Manifests manifests;

    IngressTest(String overlay) {
        this.manifests = Manifests.of(overlay);
    }

    @Test
    void oneIngressServesOneOrigin() {
        assertThat(manifests.ofKind("Ingress")).hasSize(1);
        assertThat(rules()).hasSize(1);
    }

    @Test
    void actionsGoToTheExecutor() {
        for (String path : List.of("/api/actions", "/api/actions/", "/api/actions/0b0e/confirm",
                "/api/actions/confirm-batch",
                "/api/actions/policy/agent-writes", "/api/actions/imports/confirm")) {
            assertThat(route(path)).as(path).isEqualTo("executor-service");
        }
    }

    @Test
    void theRestOfTheApiAndTheUiGoToTheAgent() {
        for (String path : List.of("/", "/index.html", "/ui/app.js", "/api/conversations/c1/messages", "/api/wallets",
                "/api/ui/config", "/api/brief", "/api/actionsx")) {
            assertThat(route(path)).as(path).isEqualTo("agent-service");
        }
    }

    @Test
    void healthMetricsAndOpenApiAreNotPublished() {
        for (String path : List.of("/q/metrics", "/q/health/ready", "/q/openapi", "/q/swagger-ui/")) {
            assertThat(route(path)).as(path).isNull();
        }
    }

    @Test
    void everyBackendIsAServiceOfThisOverlay() {
        for (Map<String, Object> path : Node.maps(rules().get(0), "http", "paths")) {
            String service = Node.str(path, "backend", "service", "name");
            String port = Node.str(path, "backend", "service", "port", "name");
            assertThat(Node.maps(manifests.get("Service", service), "spec", "ports"))
                    .extracting(p -> Node.str(p, "name"))
                    .contains(port);
        }
    }

    @Test
    void theExecutorReadsTheIngresssForwardedHeadersSoSameOriginDecisionsPassItsCorsFilter() {
        // Safe only because the ingress controller is the executor's sole way in: NetworkPolicyTest holds that.
        assertThat(Node.str(manifests.get("ConfigMap", "executor-service-config"), "data", "HTTP_PROXY_FORWARDING"))
                .isEqualTo("true");
        assertThat(Node.str(manifests.get("ConfigMap", "executor-service-config"), "data", "EXECUTOR_CORS_ORIGINS"))
                .as("one origin: no cross-origin caller to allow").isEmpty();
    }

    private List<Map<String, Object>> rules() {
        return Node.maps(manifests.ofKind("Ingress").get(0), "spec", "rules");
    }

    /** The backend Service for a request path, or null when no path matches. */
    private String route(String requestPath) {
        String best = null;
        int bestLength = -1;
        boolean bestExact = false;
        for (Map<String, Object> path : Node.maps(rules().get(0), "http", "paths")) {
            String p = Node.str(path, "path");
            String type = Node.str(path, "pathType");
            boolean exact = "Exact".equals(type);
            boolean matches = exact ? requestPath.equals(p) : prefixMatches(p, requestPath);
            if (!matches) {
                continue;
            }
            if (exact && !bestExact || p.length() > bestLength && (exact || !bestExact)) {
                best = Node.str(path, "backend", "service", "name");
                bestLength = p.length();
                bestExact = exact;
            }
        }
        return best;
    }

    private static boolean prefixMatches(String prefix, String requestPath) {
        String trimmed = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
        if (trimmed.isEmpty()) {
            return true;
        }
        return requestPath.equals(trimmed) || requestPath.startsWith(trimmed + "/");
    }
}
