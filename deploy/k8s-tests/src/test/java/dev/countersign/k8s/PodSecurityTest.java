package dev.countersign.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.FieldSource;

/** Every workload of every overlay: probes, requests and limits, non-root, read-only root filesystem, no API token. */
@ParameterizedClass(name = "overlay {0}")
@FieldSource("dev.countersign.k8s.Manifests#OVERLAYS")
class PodSecurityTest {

    private final Manifests manifests;

    PodSecurityTest(String overlay) {
        this.manifests = Manifests.of(overlay);
    }

    @Test
    void bothServicesAreDeployed() {
        assertThat(manifests.ofKind("Deployment")).extracting(d -> Node.str(d, "metadata", "name"))
                .containsExactlyInAnyOrder("agent-service", "executor-service");
    }

    @Test
    void everyServiceContainerHasReadinessLivenessAndStartupProbesOnTheHealthEndpoints() {
        for (Map<String, Object> deployment : manifests.ofKind("Deployment")) {
            for (Map<String, Object> c : Node.containers(Node.map(deployment, "spec", "template", "spec"))) {
                String where = Node.str(deployment, "metadata", "name") + "/" + c.get("name");
                assertThat(Node.str(c, "readinessProbe", "httpGet", "path")).as(where + " readiness")
                        .isEqualTo("/q/health/ready");
                assertThat(Node.str(c, "livenessProbe", "httpGet", "path")).as(where + " liveness")
                        .isEqualTo("/q/health/live");
                assertThat(Node.str(c, "startupProbe", "httpGet", "path")).as(where + " startup")
                        .isEqualTo("/q/health/started");
                // /q/ is served on the management interface only: the public port answers 404 there.
                for (String probe : List.of("readinessProbe", "livenessProbe", "startupProbe")) {
                    assertThat(Node.str(c, probe, "httpGet", "port")).as(where + " " + probe + " port")
                            .isEqualTo("management");
                }
                assertThat(Node.maps(c, "ports")).extracting(p -> Node.str(p, "name")).as(where + " ports")
                        .contains("http", "management");
            }
        }
    }

    @Test
    void everyContainerHasCpuAndMemoryRequestsAndLimits() {
        manifests.podSpecs().forEach((workload, pod) -> {
            for (Map<String, Object> c : Node.containers(pod)) {
                for (String bound : List.of("requests", "limits")) {
                    assertThat(Node.map(c, "resources", bound)).as("%s/%s resources.%s", workload, c.get("name"), bound)
                            .containsKeys("cpu", "memory");
                }
            }
        });
    }

    @Test
    void everyContainerRunsAsNonRootOnAReadOnlyRootFilesystemWithoutPrivileges() {
        manifests.podSpecs().forEach((workload, pod) -> {
            Map<String, Object> podContext = Node.map(pod, "securityContext");
            for (Map<String, Object> c : Node.containers(pod)) {
                String where = workload + "/" + c.get("name");
                Map<String, Object> context = Node.map(c, "securityContext");
                assertThat(effective(context, podContext, "runAsNonRoot")).as(where + " runAsNonRoot")
                        .isEqualTo("true");
                assertThat(Node.str(context, "readOnlyRootFilesystem")).as(where + " readOnlyRootFilesystem")
                        .isEqualTo("true");
                assertThat(Node.str(context, "allowPrivilegeEscalation")).as(where + " allowPrivilegeEscalation")
                        .isEqualTo("false");
                assertThat(Node.strs(context, "capabilities", "drop")).as(where + " drops capabilities")
                        .contains("ALL");
                assertThat(Node.strs(context, "capabilities", "add")).as(where + " adds capabilities").isEmpty();
                assertThat(Node.str(context, "privileged")).as(where + " privileged").isNotEqualTo("true");
                String seccomp = Node.str(context, "seccompProfile", "type");
                assertThat(seccomp != null ? seccomp : Node.str(podContext, "seccompProfile", "type"))
                        .as(where + " seccomp").isEqualTo("RuntimeDefault");
                String uid = effective(context, podContext, "runAsUser");
                assertThat(uid).as(where + " runAsUser").isNotNull().isNotEqualTo("0");
            }
        });
    }

    @Test
    void aReadOnlyRootFilesystemComesWithAnEmptyDirForTmp() {
        manifests.podSpecs().forEach((workload, pod) -> {
            Set<String> emptyDirs = Node.maps(pod, "volumes").stream().filter(v -> v.containsKey("emptyDir"))
                    .map(v -> Node.str(v, "name")).collect(Collectors.toSet());
            for (Map<String, Object> c : Node.containers(pod)) {
                assertThat(Node.maps(c, "volumeMounts"))
                        .as("%s/%s mounts an emptyDir at /tmp", workload, c.get("name"))
                        .anySatisfy(m -> {
                            assertThat(Node.str(m, "mountPath")).isEqualTo("/tmp");
                            assertThat(emptyDirs).contains(Node.str(m, "name"));
                        });
            }
        });
    }

    @Test
    void noPodGetsAKubernetesApiToken() {
        manifests.podSpecs().forEach((workload, pod) -> assertThat(Node.str(pod, "automountServiceAccountToken"))
                .as(workload + " automountServiceAccountToken").isEqualTo("false"));
        assertThat(manifests.ofKind("Role")).isEmpty();
        assertThat(manifests.ofKind("RoleBinding")).isEmpty();
        assertThat(manifests.ofKind("ClusterRoleBinding")).isEmpty();
    }

    @Test
    void everyServiceHasADisruptionBudgetAndAnAutoscaler() {
        for (Map<String, Object> deployment : manifests.ofKind("Deployment")) {
            String name = Node.str(deployment, "metadata", "name");
            Map<String, String> labels = manifests.podLabels(name);
            assertThat(manifests.ofKind("PodDisruptionBudget")).as(name + " PodDisruptionBudget").anySatisfy(pdb -> {
                assertThat(labels).containsAllEntriesOf(Node.strings(Node.map(pdb, "spec", "selector", "matchLabels")));
                assertThat(Node.map(pdb, "spec", "selector", "matchLabels")).isNotEmpty();
            });
            assertThat(manifests.ofKind("HorizontalPodAutoscaler")).as(name + " HorizontalPodAutoscaler")
                    .anySatisfy(hpa -> {
                        assertThat(Node.str(hpa, "spec", "scaleTargetRef", "kind")).isEqualTo("Deployment");
                        assertThat(Node.str(hpa, "spec", "scaleTargetRef", "name")).isEqualTo(name);
                        assertThat(Integer.parseInt(Node.str(hpa, "spec", "maxReplicas")))
                                .isGreaterThanOrEqualTo(Integer.parseInt(Node.str(hpa, "spec", "minReplicas")));
                    });
        }
    }

    @Test
    void servicesSelectTheirPodsOnTheirHttpPort() {
        for (String name : List.of("agent-service", "executor-service")) {
            Map<String, Object> service = manifests.get("Service", name);
            assertThat(manifests.podLabels(name)).as(name + " Service selector")
                    .containsAllEntriesOf(Node.strings(Node.map(service, "spec", "selector")));
            Map<String, Object> container = Node.maps(manifests.podSpec("Deployment", name), "containers").get(0);
            assertThat(Node.maps(service, "spec", "ports")).extracting(p -> Node.str(p, "targetPort"))
                    .containsExactly("http");
            assertThat(Node.maps(container, "ports")).extracting(p -> Node.str(p, "name")).contains("http");
        }
    }

    private static String effective(Map<String, Object> container, Map<String, Object> pod, String field) {
        String value = Node.str(container, field);
        return value != null ? value : Node.str(pod, field);
    }
}
