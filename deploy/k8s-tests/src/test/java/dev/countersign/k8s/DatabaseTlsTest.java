package dev.countersign.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Production connects to PostgreSQL with sslmode=verify-full: both services' reactive pools and the migration Job's
 * JDBC connection trust only the cluster's CA (the public ca.crt of CloudNativePG's countersign-db-ca, mounted alone)
 * and check the server's name. The variables the ConfigMaps set are the ones application.properties reads.
 */
class DatabaseTlsTest {

    private static final String CA_SECRET = "countersign-db-ca";
    private final Manifests prod = Manifests.of("prod");

    @Test
    void bothServicesVerifyTheServerAgainstTheClustersCa() throws Exception {
        for (String service : List.of("agent-service", "executor-service")) {
            Map<String, Object> data = Node.map(prod.get("ConfigMap", service + "-config"), "data");
            assertThat(data).as(service).containsEntry("DB_SSL_MODE", "verify-full")
                    .containsEntry("DB_HOSTNAME_VERIFICATION", "HTTPS").containsEntry("DB_TRUST_CA", "true");
            assertThat(mountedCaFiles(prod.podSpec("Deployment", service))).as(service)
                    .contains(String.valueOf(data.get("DB_CA_FILE")));

            String properties = Files.readString(Manifests.repoRoot()
                    .resolve(service + "/src/main/resources/application.properties"));
            // The default datasource and every named one (the agent's "plan" pool), each with the same settings.
            List<String> datasources = new ArrayList<>(List.of("quarkus.datasource."));
            Matcher named = Pattern.compile("(?m)^quarkus\\.datasource\\.(\"[^\"]+\")\\.db-kind=").matcher(properties);
            while (named.find()) {
                datasources.add("quarkus.datasource." + named.group(1) + ".");
            }
            if (service.equals("agent-service")) {
                assertThat(datasources).contains("quarkus.datasource.\"plan\".");
            }
            for (String ds : datasources) {
                assertThat(properties).as(service + " " + ds + " reads the variables")
                        .contains(ds + "reactive.postgresql.ssl-mode=${DB_SSL_MODE:disable}")
                        .contains(ds + "reactive.hostname-verification-algorithm=${DB_HOSTNAME_VERIFICATION:NONE}")
                        .contains(ds + "reactive.trust-certificate-pem=${DB_TRUST_CA:false}")
                        .contains(ds + "reactive.trust-certificate-pem.certs=${DB_CA_FILE:}");
            }
        }
    }

    @Test
    void migrationsAndTheExecutorsJdbcUrlUseVerifyFullWithTheMountedCa() {
        Map<String, Object> job = prod.podSpec("Job", "countersign-migrate");
        String jobUrl = null;
        for (Map<String, Object> env : Node.maps(Node.containers(job).get(0), "env")) {
            if ("EXECUTOR_DB_JDBC_URL".equals(Node.str(env, "name"))) {
                jobUrl = Node.str(env, "value");
            }
        }
        String executorUrl = Node.str(prod.get("ConfigMap", "executor-service-config"), "data", "EXECUTOR_DB_JDBC_URL");
        for (String url : new String[]{jobUrl, executorUrl}) {
            assertThat(url).contains("sslmode=verify-full").contains("sslrootcert=");
            String rootCert = url.substring(url.indexOf("sslrootcert=") + "sslrootcert=".length()).split("&")[0];
            assertThat(mountedCaFiles(job)).contains(rootCert);
        }
        assertThat(mountedCaFiles(prod.podSpec("Deployment", "executor-service")))
                .contains("/etc/countersign/db-ca/ca.crt");
    }

    @Test
    void theDevOverlayStaysPlainLikeTheLocalStack() {
        Manifests dev = Manifests.of("dev");
        for (String service : List.of("agent-service", "executor-service")) {
            assertThat(Node.map(dev.get("ConfigMap", service + "-config"), "data")).doesNotContainKey("DB_SSL_MODE");
        }
    }

    /** The files the pod's first container sees from the CA Secret: only its public ca.crt, never ca.key. */
    private static List<String> mountedCaFiles(Map<String, Object> pod) {
        List<String> files = new java.util.ArrayList<>();
        for (Map<String, Object> volume : Node.maps(pod, "volumes")) {
            if (!CA_SECRET.equals(Node.str(volume, "secret", "secretName"))) {
                continue;
            }
            List<Map<String, Object>> items = Node.maps(volume, "secret", "items");
            assertThat(items).as("only ca.crt of " + CA_SECRET).extracting(item -> Node.str(item, "key"))
                    .containsExactly("ca.crt");
            for (Map<String, Object> mount : Node.maps(Node.containers(pod).get(0), "volumeMounts")) {
                if (Node.str(volume, "name").equals(Node.str(mount, "name"))) {
                    files.add(Node.str(mount, "mountPath") + "/" + Node.str(items.get(0), "path"));
                }
            }
        }
        return files;
    }
}
