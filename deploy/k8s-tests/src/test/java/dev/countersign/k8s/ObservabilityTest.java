package dev.countersign.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.FieldSource;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Monitoring as rendered: Prometheus scrapes each service's pods at /q/metrics on the http port, the Grafana dashboard
 * is a ConfigMap the sidecar picks up, and the dashboard and the alerts query only metrics the services export; both
 * services log JSON and export traces to the collector.
 */
@ParameterizedClass(name = "overlay {0}")
@FieldSource("dev.countersign.k8s.Manifests#OVERLAYS")
class ObservabilityTest {

    /**
     * The series the services export at /q/metrics, as the Prometheus registry names Micrometer's meters (dots to
     * underscores, {@code _total} for counters, {@code _seconds} for timers). Defined in executor-service:
     * {@code outbox.OutcomeMetrics}, {@code decision.ActorMismatches}, {@code external.egress.ExternalGate}; in
     * agent-service: {@code turn.TurnMetrics}. A metric renamed there must be renamed here, in the dashboard and in the
     * alerts.
     */
    private static final Set<String> COUNTERS = Set.of(
            "countersign_actions_total",
            "countersign_actions_auto_applied_total",
            "countersign_proposals_rejected_total",
            "countersign_actions_actor_mismatch_total",
            "countersign_external_ungated_calls_total",
            "countersign_agent_model_tokens_total");

    /** Timers registered with {@code publishPercentileHistogram()}: they have {@code _bucket} series. */
    private static final Set<String> HISTOGRAMS = Set.of(
            "countersign_action_confirm_to_executed_seconds",
            "countersign_agent_turn_seconds",
            "countersign_agent_model_call_seconds",
            "countersign_agent_turn_recording_seconds");

    private static final Set<String> EXPORTED_SERIES = Stream.concat(COUNTERS.stream(),
            HISTOGRAMS.stream().flatMap(h -> Stream.of(h + "_bucket", h + "_sum", h + "_count")))
            .collect(Collectors.toUnmodifiableSet());

    private static final Pattern METRIC = Pattern.compile("\\bcountersign_[a-zA-Z0-9_:]+");

    private final Manifests manifests;

    ObservabilityTest(String overlay) {
        this.manifests = Manifests.of(overlay);
    }

    @Test
    void theDashboardIsAConfigMapLabelledForTheGrafanaSidecar() {
        Map<String, Object> configMap = manifests.get("ConfigMap", "countersign-dashboard");
        assertThat(Node.str(configMap, "metadata", "labels", "grafana_dashboard")).isEqualTo("1");
        assertThat(Node.map(configMap, "data").keySet()).singleElement(InstanceOfAssertFactories.STRING)
                .endsWith(".json");
    }

    @Test
    void everyDashboardPanelQueriesOnlyExportedMetrics() {
        List<JsonNode> panels = panels(dashboard().path("panels"));
        assertThat(panels).isNotEmpty();
        for (JsonNode panel : panels) {
            String title = panel.path("title").asText();
            List<String> exprs = new ArrayList<>();
            panel.path("targets").forEach(target -> exprs.add(target.path("expr").asText()));
            assertThat(exprs).as("panel '%s' has queries", title).isNotEmpty();
            for (String expr : exprs) {
                assertThat(metricsIn(expr)).as("panel '%s': %s", title, expr).isNotEmpty()
                        .isSubsetOf(EXPORTED_SERIES);
            }
        }
    }

    @Test
    void theDashboardShowsEveryExportedMetric() {
        Set<String> shown = new TreeSet<>();
        for (JsonNode panel : panels(dashboard().path("panels"))) {
            panel.path("targets").forEach(target -> shown.addAll(metricsIn(target.path("expr").asText())));
        }
        Set<String> families = shown.stream().map(s -> s.replaceFirst("_(bucket|sum|count)$", ""))
                .collect(Collectors.toSet());
        assertThat(families).containsAll(COUNTERS).containsAll(HISTOGRAMS);
    }

    @Test
    void quantilesAreComputedFromHistogramBucketsOnly() {
        List<String> exprs = new ArrayList<>();
        for (JsonNode panel : panels(dashboard().path("panels"))) {
            panel.path("targets").forEach(target -> exprs.add(target.path("expr").asText()));
        }
        alerts().forEach(rule -> exprs.add(Node.str(rule, "expr")));
        Set<String> buckets = HISTOGRAMS.stream().map(h -> h + "_bucket").collect(Collectors.toSet());
        List<String> quantiles = exprs.stream().filter(e -> e.contains("histogram_quantile")).toList();
        assertThat(quantiles).isNotEmpty();
        for (String expr : quantiles) {
            assertThat(metricsIn(expr)).as(expr).isNotEmpty().isSubsetOf(buckets);
        }
    }

    @Test
    void eachServicesPodsAreScrapedAtQMetricsOnTheirHttpPort() {
        for (String service : List.of("agent-service", "executor-service")) {
            Map<String, String> podLabels = manifests.podLabels(service);
            List<Map<String, Object>> monitors = manifests.ofKind("PodMonitor").stream()
                    .filter(m -> NetworkPolicies.selects(Node.map(m, "spec", "selector"), podLabels)).toList();
            assertThat(monitors).as("PodMonitors of %s", service).hasSize(1);
            Map<String, Object> monitor = monitors.get(0);
            assertThat(Node.map(monitor, "spec")).as("%s: scrapes its own namespace", service)
                    .doesNotContainKey("namespaceSelector");
            assertThat(Node.maps(monitor, "spec", "podMetricsEndpoints")).as(service).singleElement()
                    .satisfies(endpoint -> {
                        assertThat(Node.str(endpoint, "port")).isEqualTo("management");
                        assertThat(Node.str(endpoint, "path")).isEqualTo("/q/metrics");
                        assertThat(Node.str(endpoint, "interval")).isEqualTo("30s");
                    });
            assertThat(Node.maps(Node.containers(manifests.podSpec("Deployment", service)).get(0), "ports"))
                    .as("%s has a container port named management", service)
                    .anySatisfy(port -> assertThat(Node.str(port, "name")).isEqualTo("management"));
        }
    }

    @Test
    void alertsQueryOnlyExportedMetricsAndAnUngatedCallIsCritical() {
        List<Map<String, Object>> alerts = alerts();
        assertThat(alerts).isNotEmpty();
        for (Map<String, Object> alert : alerts) {
            assertThat(metricsIn(Node.str(alert, "expr"))).as("alert %s", Node.str(alert, "alert")).isNotEmpty()
                    .isSubsetOf(EXPORTED_SERIES);
            assertThat(Node.str(alert, "labels", "severity")).as("alert %s", Node.str(alert, "alert"))
                    .isIn("critical", "warning");
        }
        assertThat(alerts).filteredOn(a -> metricsIn(Node.str(a, "expr"))
                .contains("countersign_external_ungated_calls_total"))
                .singleElement()
                .satisfies(a -> assertThat(Node.str(a, "labels", "severity")).isEqualTo("critical"))
                .satisfies(a -> assertThat(Node.map(a)).doesNotContainKey("for"));
    }

    @Test
    void bothServicesLogJsonAndSendTracesToTheCollectorInTheMonitoringNamespace() {
        for (String configMap : List.of("agent-service-config", "executor-service-config")) {
            Map<String, Object> data = Node.map(manifests.get("ConfigMap", configMap), "data");
            assertThat(Node.str(data, "LOG_JSON")).as(configMap).isEqualTo("true");
            URI endpoint = URI.create(Node.str(data, "OTEL_EXPORTER_OTLP_ENDPOINT"));
            assertThat(endpoint.getScheme()).as(configMap).isEqualTo("http");
            assertThat(endpoint.getHost()).as(configMap).isEqualTo("otel-collector.monitoring.svc");
            assertThat(endpoint.getPort()).as("%s: OTLP over HTTP", configMap).isEqualTo(4318);
        }
    }

    @Test
    void theMigrationJobLogsJsonAndSendsNoTraces() {
        Map<String, String> env = new java.util.HashMap<>();
        for (Map<String, Object> container : Node.containers(
                Node.map(manifests.get("Job", "countersign-migrate"), "spec", "template", "spec"))) {
            for (Map<String, Object> variable : Node.maps(container, "env")) {
                env.put(Node.str(variable, "name"), Node.str(variable, "value"));
            }
        }
        assertThat(env).containsEntry("LOG_JSON", "true").containsEntry("OTEL_SDK_DISABLED", "true");
    }

    private JsonNode dashboard() {
        Map<String, Object> data = Node.map(manifests.get("ConfigMap", "countersign-dashboard"), "data");
        String json = String.valueOf(data.values().iterator().next());
        try {
            return new ObjectMapper().readTree(json);
        } catch (JsonProcessingException e) {
            throw new AssertionError("the dashboard is not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Panels, with those inside rows; rows themselves hold no queries. */
    private static List<JsonNode> panels(JsonNode list) {
        List<JsonNode> panels = new ArrayList<>();
        for (JsonNode panel : list) {
            if ("row".equals(panel.path("type").asText())) {
                panels.addAll(panels(panel.path("panels")));
            } else {
                panels.add(panel);
            }
        }
        return panels;
    }

    private List<Map<String, Object>> alerts() {
        List<Map<String, Object>> alerts = new ArrayList<>();
        for (Map<String, Object> rule : manifests.ofKind("PrometheusRule")) {
            for (Map<String, Object> group : Node.maps(rule, "spec", "groups")) {
                Node.maps(group, "rules").stream().filter(r -> r.containsKey("alert")).forEach(alerts::add);
            }
        }
        return alerts;
    }

    private static Set<String> metricsIn(String expr) {
        Set<String> names = new TreeSet<>();
        Matcher matcher = METRIC.matcher(expr == null ? "" : expr);
        while (matcher.find()) {
            names.add(matcher.group());
        }
        return names;
    }
}
