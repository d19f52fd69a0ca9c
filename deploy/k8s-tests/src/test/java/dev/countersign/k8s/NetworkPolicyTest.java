package dev.countersign.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.FieldSource;

import dev.countersign.k8s.NetworkPolicies.Peer;

/**
 * The network fences, evaluated on sample pods: the agent reaches Kafka, PostgreSQL, the model endpoint, the identity
 * provider, DNS, the trace collector and the executor's public port (reader grants) only; the executor reaches Kafka,
 * PostgreSQL, the identity provider, DNS and the collector, and is reached from the ingress controller, the agent (and
 * Prometheus) only; the monitoring namespace reaches each service's management port and nothing else.
 */
@ParameterizedClass(name = "overlay {0}")
@FieldSource("dev.countersign.k8s.Manifests#OVERLAYS")
class NetworkPolicyTest {

    /** Pod addresses in each private range a cluster may use: an ipBlock over any of them reaches pods. */
    private static final List<String> POD_IPS = List.of("10.244.1.7", "172.20.3.9", "192.168.5.11", "100.64.2.3");

    private final Manifests manifests;
    private final NetworkPolicies policies;
    private final String ns;

    NetworkPolicyTest(String overlay) {
        this.manifests = Manifests.of(overlay);
        this.policies = new NetworkPolicies(manifests);
        this.ns = manifests.namespace();
    }

    private Peer agent(String ip) {
        return Peer.pod(ns, manifests.podLabels("agent-service"), ip);
    }

    private Peer executor(String ip) {
        return Peer.pod(ns, manifests.podLabels("executor-service"), ip);
    }

    private Peer kafkaBroker() {
        return Peer.pod(ns, Map.of("strimzi.io/cluster", "countersign-kafka", "strimzi.io/kind", "Kafka",
                "strimzi.io/broker-role", "true", "strimzi.io/controller-role", "true"), "10.244.9.1");
    }

    private Peer postgres() {
        return Peer.pod(ns, Map.of("cnpg.io/cluster", "countersign-db", "cnpg.io/instanceRole", "primary"),
                "10.244.9.2");
    }

    private static Peer dns() {
        return Peer.pod("kube-system", Map.of("k8s-app", "kube-dns"), "10.96.0.10");
    }

    private static Peer ingressController() {
        return Peer.pod("ingress-nginx", Map.of("app.kubernetes.io/name", "ingress-nginx"), "10.244.8.1");
    }

    private static Peer prometheus() {
        return Peer.pod("monitoring", Map.of("app.kubernetes.io/name", "prometheus"), "10.244.5.1");
    }

    /** The trace collector, where the service's ConfigMap sends OTLP: a pod of the namespace its host names. */
    private Peer collector(String service) {
        URI endpoint = collectorEndpoint(service);
        String namespace = endpoint.getHost().split("\\.")[1];
        return Peer.pod(namespace, Map.of("app.kubernetes.io/name", "opentelemetry-collector"), "10.244.5.2");
    }

    private URI collectorEndpoint(String service) {
        return URI.create(Node.str(manifests.get("ConfigMap", service + "-config"), "data",
                "OTEL_EXPORTER_OTLP_ENDPOINT"));
    }

    /** The container port named http (the public API), which the Service and the Ingress use. */
    private int httpPort(String service) {
        return namedPort(service, "http");
    }

    /** The container port named management (/q/: health and metrics), which the probes and the PodMonitor use. */
    private int managementPort(String service) {
        return namedPort(service, "management");
    }

    private int namedPort(String service, String name) {
        for (Map<String, Object> port : Node.maps(Node.containers(manifests.podSpec("Deployment", service)).get(0),
                "ports")) {
            if (name.equals(Node.str(port, "name"))) {
                return Integer.parseInt(Node.str(port, "containerPort"));
            }
        }
        throw new AssertionError(service + " has no port named " + name);
    }

    /** The model endpoint: an address of the CIDR the agent's own egress policy allows. */
    private Peer modelEndpoint() {
        return Peer.external(NetworkPolicies.firstHost(onlyCidr("agent-service-egress")));
    }

    /**
     * The identity provider: an address of the CIDR its policy allows. NetworkPolicy cannot name the host the services'
     * URLs name, so the tests take the policy's block as where that host resolves (the overlay keeps the two in step:
     * overlays/prod/identity-provider.yaml).
     */
    private Peer identityProvider() {
        return Peer.external(NetworkPolicies.firstHost(onlyCidr("allow-identity-provider")));
    }

    private String onlyCidr(String policy) {
        List<String> cidrs = new ArrayList<>();
        for (Map<String, Object> rule : Node.maps(manifests.get("NetworkPolicy", policy), "spec", "egress")) {
            for (Map<String, Object> peer : Node.maps(rule, "to")) {
                if (Node.str(peer, "ipBlock", "cidr") != null) {
                    cidrs.add(Node.str(peer, "ipBlock", "cidr"));
                }
            }
        }
        assertThat(cidrs).as("address blocks of %s", policy).hasSize(1);
        return cidrs.get(0);
    }

    /** The identity provider's URL as a service's ConfigMap names it (its issuer URL). */
    private URI identityProviderUrl(String service) {
        return URI.create(Node.str(manifests.get("ConfigMap", service + "-config"), "data", "OIDC_AUTH_SERVER_URL"));
    }

    private static int httpsPort(URI url) {
        return url.getPort() == -1 ? 443 : url.getPort();
    }

    /**
     * The agent reaches the executor's public port only (for reader grants: every other endpoint there needs a person's
     * executor token), never its management port or any other.
     */
    @Test
    void theAgentReachesTheExecutorsPublicPortOnly() {
        for (String agentIp : POD_IPS) {
            for (String executorIp : POD_IPS) {
                assertThat(policies.connects(agent(agentIp), executor(executorIp), 8081, "TCP"))
                        .as("agent to the executor's public port at %s", executorIp).isTrue();
                for (int port : new int[]{80, 443, 8080, 9000, 9001}) {
                    assertThat(policies.egressAllowed(agent(agentIp), executor(executorIp), port, "TCP"))
                            .as("agent egress to the executor at %s:%d", executorIp, port).isFalse();
                    assertThat(policies.ingressAllowed(agent(agentIp), executor(executorIp), port, "TCP"))
                            .as("executor ingress from the agent at %s:%d", agentIp, port).isFalse();
                }
            }
        }
    }

    @Test
    void theAgentReachesKafkaPostgresTheModelDnsAndTheCollector() {
        Peer agent = agent(POD_IPS.get(0));
        // The brokers' ingress policy is Strimzi's, made from the listener's networkPolicyPeers (tested below).
        assertThat(policies.egressAllowed(agent, kafkaBroker(), 9093, "TCP")).as("Kafka TLS listener").isTrue();
        assertThat(policies.egressAllowed(agent, postgres(), 5432, "TCP")).as("PostgreSQL").isTrue();
        assertThat(policies.connects(agent, postgres(), 5432, "TCP")).as("PostgreSQL accepts the agent").isTrue();
        assertThat(policies.egressAllowed(agent, modelEndpoint(), 443, "TCP")).as("model endpoint").isTrue();
        assertThat(policies.egressAllowed(agent, dns(), 53, "UDP")).as("DNS").isTrue();
        assertThat(policies.egressAllowed(agent, collector("agent-service"), 4318, "TCP")).as("trace collector")
                .isTrue();
        assertThat(policies.egressAllowed(agent, identityProvider(), 443, "TCP")).as("identity provider").isTrue();
    }

    @Test
    void theAgentReachesNothingElse() {
        Peer agent = agent(POD_IPS.get(0));
        assertThat(policies.egressAllowed(agent, kafkaBroker(), 9091, "TCP")).as("Kafka replication port").isFalse();
        assertThat(policies.egressAllowed(agent, kafkaBroker(), 9090, "TCP")).as("KRaft controller port").isFalse();
        assertThat(policies.egressAllowed(agent, postgres(), 8000, "TCP")).as("CNPG instance manager").isFalse();
        assertThat(policies.egressAllowed(agent, modelEndpoint(), 80, "TCP")).as("model endpoint over plain HTTP")
                .isFalse();
        assertThat(policies.egressAllowed(agent, identityProvider(), 80, "TCP")).as("identity provider over plain HTTP")
                .isFalse();
        assertThat(policies.egressAllowed(agent, Peer.external("8.8.8.8"), 443, "TCP")).as("the internet").isFalse();
        assertThat(
                policies.egressAllowed(agent, Peer.pod("default", Map.of("app", "anything"), "10.244.7.7"), 443, "TCP"))
                .as("a pod of another namespace").isFalse();
        assertThat(policies.egressAllowed(agent, Peer.external("169.254.169.254"), 80, "TCP")).as("cloud metadata")
                .isFalse();
        assertThat(policies.egressAllowed(agent, agent(POD_IPS.get(1)), 8080, "TCP")).as("another agent").isFalse();
        assertCollectorOnly(agent);
    }

    /** The monitoring namespace is open to traces on 4318 over TCP, not on another port or protocol. */
    private void assertCollectorOnly(Peer pod) {
        Peer collector = collector(pod.labels().get("app.kubernetes.io/name"));
        for (int port : new int[]{4317, 9090, 443, 80, 3000}) {
            assertThat(policies.egressAllowed(pod, collector, port, "TCP")).as("the monitoring namespace on %d", port)
                    .isFalse();
        }
        assertThat(policies.egressAllowed(pod, collector, 4318, "UDP")).as("4318 over UDP").isFalse();
        assertThat(policies.egressAllowed(pod, Peer.pod("default", Map.of("app", "anything"), "10.244.7.7"), 4318,
                "TCP")).as("4318 in another namespace").isFalse();
        assertThat(policies.egressAllowed(pod, Peer.external("8.8.8.8"), 4318, "TCP")).as("4318 on the internet")
                .isFalse();
    }

    /** The model endpoint's and the identity provider's rules: HTTPS only, to addresses that are no pod's. */
    @Test
    void everyEgressToAnAddressBlockIsHttpsOutsideTheCluster() {
        List<Map<String, Object>> selecting = new ArrayList<>(policies.selecting(agent(POD_IPS.get(0)), "Egress"));
        selecting.addAll(policies.selecting(executor(POD_IPS.get(0)), "Egress"));
        for (Map<String, Object> policy : selecting) {
            for (Map<String, Object> rule : Node.maps(policy, "spec", "egress")) {
                for (Map<String, Object> peer : Node.maps(rule, "to")) {
                    if (peer.containsKey("ipBlock")) {
                        assertThat(Node.maps(rule, "ports")).extracting(p -> Node.str(p, "port"))
                                .containsExactly("443");
                        for (String podIp : POD_IPS) {
                            assertThat(NetworkPolicies.inBlock(Node.map(peer, "ipBlock"), podIp))
                                    .as("ipBlock %s covers pod address %s", Node.str(peer, "ipBlock", "cidr"), podIp)
                                    .isFalse();
                        }
                    }
                }
            }
        }
    }

    @Test
    void onlyTheIngressControllerReachesTheAgentsPublicPortWhoseForwardedHeadersItTrusts() {
        Peer agent = agent(POD_IPS.get(0));
        assertThat(policies.connects(ingressController(), agent, 8080, "TCP")).isTrue();
        assertThat(policies.ingressAllowed(Peer.pod("default", Map.of("app", "anything"), "10.244.7.7"), agent, 8080,
                "TCP")).as("a pod of another namespace").isFalse();
        assertThat(policies.ingressAllowed(Peer.pod(ns, Map.of("app", "anything"), "10.244.7.8"), agent, 8080, "TCP"))
                .as("another pod of this namespace").isFalse();
    }

    @Test
    void theExecutorIsReachedFromTheIngressControllerAndReachesOnlyKafkaPostgresTheCollectorAndTheIdentityProvider() {
        Peer executor = executor(POD_IPS.get(0));
        assertThat(policies.connects(ingressController(), executor, 8081, "TCP")).isTrue();
        for (String service : List.of("agent-service", "executor-service")) {
            Peer pod = Peer.pod(ns, manifests.podLabels(service), POD_IPS.get(1));
            assertThat(policies.ingressAllowed(ingressController(), pod, managementPort(service), "TCP"))
                    .as("the ingress controller on %s's management port", service).isFalse();
        }
        assertThat(policies.ingressAllowed(Peer.pod("default", Map.of("app", "anything"), "10.244.7.7"), executor, 8081,
                "TCP"))
                .as("a pod of another namespace").isFalse();
        assertThat(
                policies.ingressAllowed(Peer.pod(ns, Map.of("app", "anything"), "10.244.7.8"), executor, 8081, "TCP"))
                .as("another pod of this namespace").isFalse();
        assertThat(policies.egressAllowed(executor, kafkaBroker(), 9093, "TCP")).isTrue();
        assertThat(policies.connects(executor, postgres(), 5432, "TCP")).isTrue();
        assertThat(policies.egressAllowed(executor, agent(POD_IPS.get(1)), 8080, "TCP")).isFalse();
        assertThat(policies.egressAllowed(executor, Peer.external("8.8.8.8"), 443, "TCP")).isFalse();
        assertThat(policies.egressAllowed(executor, collector("executor-service"), 4318, "TCP")).as("trace collector")
                .isTrue();
        assertCollectorOnly(executor);
        assertThat(policies.egressAllowed(executor, identityProvider(), 443, "TCP")).as("identity provider").isTrue();
        assertThat(policies.egressAllowed(executor, identityProvider(), 80, "TCP"))
                .as("identity provider over plain HTTP").isFalse();
        assertThat(policies.egressAllowed(executor, modelEndpoint(), 443, "TCP"))
                .as("the model endpoint: the executor's HTTPS egress is the identity provider's only").isFalse();
        assertThat(policies.egressAllowed(executor, Peer.external("169.254.169.254"), 80, "TCP")).as("cloud metadata")
                .isFalse();
    }

    /**
     * Both services verify tokens with the identity provider's keys, fetched over HTTPS from the URLs their ConfigMaps
     * name (quarkus-oidc's discovery at OIDC_AUTH_SERVER_URL, the executor's Kafka parser at its JWKS URL; the
     * executor's sign-in also calls the provider's token and logout endpoints): those URLs are https, on one host and
     * port, and the egress allows that port to the provider's addresses. The migration Job gets neither.
     */
    @Test
    void bothServicesReachTheIdentityProviderOverHttpsOnThePortTheirUrlsName() {
        URI issuer = identityProviderUrl("executor-service");
        for (String service : List.of("agent-service", "executor-service")) {
            Map<String, Object> data = Node.map(manifests.get("ConfigMap", service + "-config"), "data");
            URI url = identityProviderUrl(service);
            assertThat(url.getScheme()).as("%s OIDC_AUTH_SERVER_URL", service).isEqualTo("https");
            assertThat(url).as("one identity provider for both services").isEqualTo(issuer);
            assertThat(String.valueOf(data.get("JWT_ISSUER"))).as("%s: the issuer URL is where discovery is", service)
                    .isEqualTo(url.toString());
            assertThat(data).as("%s verifies with the provider's JWKS, not a mounted key", service)
                    .doesNotContainKey("OIDC_PUBLIC_KEY");
            Peer pod = Peer.pod(ns, manifests.podLabels(service), POD_IPS.get(0));
            assertThat(policies.egressAllowed(pod, identityProvider(), httpsPort(url), "TCP"))
                    .as("%s to %s", service, url).isTrue();
        }
        assertThat(Node.map(manifests.get("ConfigMap", "executor-service-config"), "data"))
                .as("one key source: the Kafka evidence is verified from OIDC_AUTH_SERVER_URL too, no second JWKS URL")
                .doesNotContainKeys("MP_JWT_VERIFY_PUBLICKEY_LOCATION", "MP_JWT_VERIFY_PUBLICKEY");
        Map<String, String> migrateLabels = Node.strings(
                Node.map(manifests.get("Job", "countersign-migrate"), "spec", "template", "metadata", "labels"));
        assertThat(policies.egressAllowed(Peer.pod(ns, migrateLabels, "10.244.7.10"), identityProvider(),
                httpsPort(issuer), "TCP")).as("the migration Job has no egress to the identity provider").isFalse();
    }

    @Test
    void bothServicesSendTracesToThePortTheirEgressAllows() {
        for (String service : List.of("agent-service", "executor-service")) {
            Peer pod = Peer.pod(ns, manifests.podLabels(service), POD_IPS.get(0));
            assertThat(policies.egressAllowed(pod, collector(service), collectorEndpoint(service).getPort(), "TCP"))
                    .as("%s to %s", service, collectorEndpoint(service)).isTrue();
        }
        Map<String, String> migrateLabels = Node.strings(
                Node.map(manifests.get("Job", "countersign-migrate"), "spec", "template", "metadata", "labels"));
        assertThat(policies.egressAllowed(Peer.pod(ns, migrateLabels, "10.244.7.10"), collector("agent-service"), 4318,
                "TCP")).as("the migration Job has no egress to the collector").isFalse();
    }

    @Test
    void theMonitoringNamespaceReachesEachServicesManagementPortAndNothingElse() {
        Peer agent = agent(POD_IPS.get(0));
        Peer executor = executor(POD_IPS.get(1));
        assertThat(policies.connects(prometheus(), agent, managementPort("agent-service"), "TCP"))
                .as("agent /q/metrics").isTrue();
        assertThat(policies.connects(prometheus(), executor, managementPort("executor-service"), "TCP"))
                .as("executor /q/metrics").isTrue();
        assertThat(policies.ingressAllowed(prometheus(), agent, httpPort("agent-service"), "TCP"))
                .as("agent's public port").isFalse();
        assertThat(policies.ingressAllowed(prometheus(), executor, httpPort("executor-service"), "TCP"))
                .as("executor's public port").isFalse();
        for (int port : new int[]{80, 443, 5005, 9090}) {
            assertThat(policies.ingressAllowed(prometheus(), agent, port, "TCP")).as("agent port %d", port).isFalse();
            assertThat(policies.ingressAllowed(prometheus(), executor, port, "TCP")).as("executor port %d", port)
                    .isFalse();
        }
        assertThat(policies.ingressAllowed(prometheus(), agent, managementPort("executor-service"), "TCP"))
                .as("agent on the executor's management port").isFalse();
        assertThat(policies.ingressAllowed(prometheus(), executor, managementPort("agent-service"), "TCP"))
                .as("executor on the agent's management port").isFalse();
        for (int port : new int[]{5432, 8000}) {
            assertThat(policies.ingressAllowed(prometheus(), postgres(), port, "TCP")).as("PostgreSQL %d", port)
                    .isFalse();
        }
        Map<String, String> migrateLabels = Node.strings(
                Node.map(manifests.get("Job", "countersign-migrate"), "spec", "template", "metadata", "labels"));
        assertThat(policies.ingressAllowed(prometheus(), Peer.pod(ns, migrateLabels, "10.244.7.10"), 8081, "TCP"))
                .as("the migration Job").isFalse();
        assertThat(policies.ingressAllowed(prometheus(), Peer.pod(ns, Map.of("app", "anything"), "10.244.7.8"), 8080,
                "TCP")).as("any other pod of this namespace").isFalse();
    }

    @Test
    void everyPodIsIngressIsolatedAndOurPodsAreEgressIsolated() {
        Peer anyPod = Peer.pod(ns, Map.of("app", "anything"), "10.244.7.8");
        assertThat(policies.selecting(anyPod, "Ingress")).as("default deny ingress").isNotEmpty();
        assertThat(policies.ingressAllowed(Peer.pod(ns, Map.of(), "10.244.7.9"), anyPod, 8080, "TCP")).isFalse();
        Map<String, String> migrateLabels = Node.strings(
                Node.map(manifests.get("Job", "countersign-migrate"), "spec", "template", "metadata", "labels"));
        for (Peer pod : List.of(agent(POD_IPS.get(0)), executor(POD_IPS.get(0)),
                Peer.pod(ns, migrateLabels, "10.244.7.10"))) {
            assertThat(policies.selecting(pod, "Egress")).as("%s is egress-isolated", pod.labels()).isNotEmpty();
        }
    }

    @Test
    void theKafkaListenerAdmitsOnlyTheServicesAndIntegrations() {
        List<Map<String, Object>> listeners = Node.maps(manifests.get("Kafka", "countersign-kafka"), "spec", "kafka",
                "listeners");
        assertThat(listeners).isNotEmpty().allSatisfy(listener -> {
            List<Map<String, Object>> peers = Node.maps(listener, "networkPolicyPeers");
            assertThat(peers).as("listener %s restricts its peers", Node.str(listener, "name")).isNotEmpty();
            for (Map<String, Object> peer : peers) {
                assertThat(peer).as("peers are pods of this namespace").containsOnlyKeys("podSelector");
                assertThat(Node.map(peer, "podSelector", "matchLabels")).isNotEmpty();
            }
            assertThat(peers).anySatisfy(p -> assertThat(
                    NetworkPolicies.selects(Node.map(p, "podSelector"), manifests.podLabels("agent-service")))
                    .isTrue());
            assertThat(peers).anySatisfy(p -> assertThat(
                    NetworkPolicies.selects(Node.map(p, "podSelector"), manifests.podLabels("executor-service")))
                    .isTrue());
        });
    }

    @Test
    void postgresAcceptsOnlyTheServicesTheMigrationAndItsOperator() {
        Map<String, String> migrateLabels = Node.strings(
                Node.map(manifests.get("Job", "countersign-migrate"), "spec", "template", "metadata", "labels"));
        assertThat(policies.connects(Peer.pod(ns, migrateLabels, "10.244.7.10"), postgres(), 5432, "TCP")).isTrue();
        assertThat(
                policies.ingressAllowed(Peer.pod(ns, Map.of("app", "anything"), "10.244.7.8"), postgres(), 5432, "TCP"))
                .isFalse();
        assertThat(policies.ingressAllowed(Peer.pod("cnpg-system", Map.of(), "10.244.6.1"), postgres(), 8000, "TCP"))
                .isTrue();
    }
}
