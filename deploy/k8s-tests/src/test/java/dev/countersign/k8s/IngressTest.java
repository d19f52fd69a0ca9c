package dev.countersign.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Two origins (docs/security/decision-origin.md): the chat's host routes to agent-service only, the decision host (the
 * decision page, its sign-in and the executor's API) to executor-service only, /q/ nowhere; each service is told the
 * other's origin. Paths are matched as the Ingress API defines it, per host: Exact before Prefix, the longest prefix
 * wins, prefixes match whole segments.
 */
@ParameterizedClass(name = "overlay {0}")
@FieldSource("dev.countersign.k8s.Manifests#OVERLAYS")
class IngressTest {

    private final Manifests manifests;
    private final boolean prod;

    IngressTest(String overlay) {
        this.manifests = Manifests.of(overlay);
        this.prod = overlay.equals("prod");
    }

    @Test
    void everyRuleNamesAHostAndEachHostServesOneServiceOnly() {
        Map<String, Set<String>> backends = new LinkedHashMap<>();
        for (Map<String, Object> rule : rules()) {
            String host = Node.str(rule, "host");
            assertThat(host).as("a rule without a host would serve both origins' paths on any host").isNotBlank();
            for (Map<String, Object> path : Node.maps(rule, "http", "paths")) {
                backends.computeIfAbsent(host, h -> new TreeSet<>())
                        .add(Node.str(path, "backend", "service", "name"));
            }
        }
        assertThat(backends).containsOnly(Map.entry(chatHost(), Set.of("agent-service")),
                Map.entry(decisionHost(), Set.of("executor-service")));
        assertThat(chatHost()).isNotEqualTo(decisionHost());
        for (Map<String, Object> ingress : manifests.ofKind("Ingress")) {
            assertThat(Node.at(ingress, "spec", "defaultBackend")).as("a default backend would answer any host")
                    .isNull();
        }
    }

    @Test
    void theChatHostServesTheChatAndItsSignInAndRoutesNothingToTheExecutor() {
        for (String path : List.of("/", "/index.html", "/ui/app.js", "/shared/dom.js", "/api/conversations/c1/messages",
                "/api/wallets",
                "/api/ui/config", "/api/brief", "/api/session", "/callback", "/logout", "/signed-out.html")) {
            assertThat(route(chatHost(), path)).as(path).isEqualTo("agent-service");
        }
        for (String path : List.of("/decide", "/decide/", "/decide/callback", "/decide/logout", "/signed-out.html",
                "/api/actions", "/api/actions/0b0e/confirm", "/api/session")) {
            assertThat(route(chatHost(), path)).as(path).isNotEqualTo("executor-service");
        }
    }

    @Test
    void theDecisionHostServesTheDecisionPageItsSignInAndTheExecutorsApiAndNothingOfTheAgent() {
        for (String path : List.of("/decide", "/decide/", "/decide/index.html", "/decide/app.js", "/decide/styles.css",
                "/shared/dom.js", "/shared/base.css", "/decide/callback", "/decide/logout", "/signed-out.html",
                "/api/session", "/api/actions",
                "/api/actions/", "/api/actions/0b0e/confirm", "/api/actions/confirm-batch",
                "/api/actions/policy/agent-writes", "/api/actions/imports/confirm",
                "/api/actions/plans/p1/commit")) {
            assertThat(route(decisionHost(), path)).as(path).isEqualTo("executor-service");
        }
        for (String path : List.of("/", "/index.html", "/ui/app.js", "/api/conversations/c1/messages",
                "/api/ui/config")) {
            assertThat(route(decisionHost(), path)).as(path).isNotEqualTo("agent-service");
        }
    }

    @Test
    void healthMetricsAndOpenApiAreNotPublished() {
        for (String host : List.of(chatHost(), decisionHost())) {
            for (String path : List.of("/q/metrics", "/q/health/ready", "/q/openapi", "/q/swagger-ui/")) {
                assertThat(route(host, path)).as(host + path).isNull();
            }
        }
    }

    @Test
    void everyBackendIsAServiceOfThisOverlay() {
        for (Map<String, Object> rule : rules()) {
            for (Map<String, Object> path : Node.maps(rule, "http", "paths")) {
                String service = Node.str(path, "backend", "service", "name");
                String port = Node.str(path, "backend", "service", "port", "name");
                assertThat(Node.maps(manifests.get("Service", service), "spec", "ports"))
                        .extracting(p -> Node.str(p, "name"))
                        .contains(port);
            }
        }
    }

    /** Production serves both hosts over TLS only; where TLS is configured it covers every host of its Ingress. */
    @Test
    void productionServesBothHostsOverTlsOnly() {
        for (Map<String, Object> ingress : manifests.ofKind("Ingress")) {
            String name = Node.str(ingress, "metadata", "name");
            List<Map<String, Object>> tlsBlocks = Node.maps(ingress, "spec", "tls");
            if (prod) {
                assertThat(tlsBlocks).as("%s has TLS in production", name).isNotEmpty();
            }
            if (tlsBlocks.isEmpty()) {
                continue;
            }
            Set<String> tlsHosts = new TreeSet<>();
            for (Map<String, Object> tls : tlsBlocks) {
                assertThat(Node.str(tls, "secretName")).as("%s TLS Secret", name).isNotBlank();
                tlsHosts.addAll(Node.strs(tls, "hosts"));
            }
            for (Map<String, Object> rule : Node.maps(ingress, "spec", "rules")) {
                assertThat(tlsHosts).as("%s TLS covers its host", name).contains(Node.str(rule, "host"));
            }
            assertThat(Node.str(ingress, "metadata", "annotations", "nginx.ingress.kubernetes.io/force-ssl-redirect"))
                    .as("%s redirects HTTP to HTTPS", name).isEqualTo("true");
        }
    }

    /**
     * The chat's cards link to the decision page's origin, and the page links back to the chat's: https origins (TLS in
     * production, above), without a path (the chat appends /decide/).
     */
    @Test
    void theChatLinksToTheDecisionHostsHttpsOriginAndThePageBackToTheChats() {
        String executorUrl = config("agent-service", "UI_EXECUTOR_URL");
        assertThat(executorUrl).isEqualTo("https://" + decisionHost());
        assertThat(URI.create(executorUrl).getHost()).isNotEqualTo(chatHost());
        assertThat(config("executor-service", "DECISION_PAGE_CHAT_URL")).isEqualTo("https://" + chatHost());
    }

    @Test
    void theExecutorReadsTheIngresssForwardedHeadersSoItsPagesOriginAndSignInAreItsPublicHost() {
        // The CSRF check compares Origin with the request's public origin, and the sign-in's redirect URI names it.
        // Safe only because the ingress controller is the executor's sole way in: NetworkPolicyTest holds that.
        assertThat(config("executor-service", "HTTP_PROXY_FORWARDING")).isEqualTo("true");
        assertThat(config("executor-service", "EXECUTOR_CORS_ORIGINS"))
                .as("no page of another origin calls the executor: nothing to allow").isEmpty();
        assertThat(config("executor-service", "DECISION_PAGE_ENABLED")).isEqualTo("true");
    }

    @Test
    void theChatSignsInWithItsOwnClientAndReadsTheIngresssForwardedHeaders() {
        // As for the executor: the chat's CSRF check and sign-in redirect need its public https origin, and the ingress
        // controller is its sole way in (NetworkPolicyTest).
        assertThat(config("agent-service", "HTTP_PROXY_FORWARDING")).isEqualTo("true");
        assertThat(config("agent-service", "CHAT_SIGN_IN")).isEqualTo("true");
        // No page's client is named like an API audience: its ID tokens would pass as bearer tokens.
        assertThat(List.of(config("agent-service", "AGENT_OIDC_CLIENT_ID"),
                config("executor-service", "EXECUTOR_OIDC_CLIENT_ID")))
                .doesNotContainNull()
                .doesNotContain("countersign-agent", "countersign-executor", "countersign-integration")
                .doesNotHaveDuplicates();
    }

    private String config(String service, String key) {
        return Node.str(manifests.get("ConfigMap", service + "-config"), "data", key);
    }

    private List<Map<String, Object>> rules() {
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Map<String, Object> ingress : manifests.ofKind("Ingress")) {
            rules.addAll(Node.maps(ingress, "spec", "rules"));
        }
        return rules;
    }

    /** The one host whose rules route /decide/ to executor-service. */
    private String decisionHost() {
        return hostRouting("/decide/", "executor-service");
    }

    /** The one host whose rules route / to agent-service. */
    private String chatHost() {
        return hostRouting("/", "agent-service");
    }

    private String hostRouting(String path, String service) {
        List<String> hosts = rules().stream().map(r -> Node.str(r, "host")).distinct()
                .filter(h -> service.equals(route(h, path))).toList();
        assertThat(hosts).as("hosts routing %s to %s", path, service).hasSize(1);
        return hosts.get(0);
    }

    /** The backend Service for a request to a host, or null when no path matches. */
    private String route(String host, String requestPath) {
        String best = null;
        int bestLength = -1;
        boolean bestExact = false;
        for (Map<String, Object> rule : rules()) {
            String ruleHost = Node.str(rule, "host");
            if (ruleHost != null && !ruleHost.equals(host)) {
                continue;
            }
            for (Map<String, Object> path : Node.maps(rule, "http", "paths")) {
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
