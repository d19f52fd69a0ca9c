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
            // The default datasource reads the variables; every named one (the agent's "plan" pool, the executor's
            // "http" pool) reads them too, or refers to the default datasource's setting.
            Map<String, String> settings = Map.of("reactive.postgresql.ssl-mode", "${DB_SSL_MODE:disable}",
                    "reactive.hostname-verification-algorithm", "${DB_HOSTNAME_VERIFICATION:NONE}",
                    "reactive.trust-certificate-pem", "${DB_TRUST_CA:false}",
                    "reactive.trust-certificate-pem.certs", "${DB_CA_FILE:}");
            settings.forEach((key, value) -> assertThat(properties).as(service + " default datasource reads " + key)
                    .contains("\nquarkus.datasource." + key + "=" + value + "\n"));
            List<String> named = new ArrayList<>();
            Matcher namedKind = Pattern.compile("(?m)^quarkus\\.datasource\\.(\"[^\"]+\")\\.db-kind=")
                    .matcher(properties);
            while (namedKind.find()) {
                named.add(namedKind.group(1));
            }
            assertThat(named).as(service).contains(service.equals("agent-service") ? "\"plan\"" : "\"http\"");
            for (String name : named) {
                settings.forEach((key, value) -> {
                    Matcher line = Pattern.compile("(?m)^quarkus\\.datasource\\." + Pattern.quote(name) + "\\."
                            + Pattern.quote(key) + "=(.*)$").matcher(properties);
                    assertThat(line.find()).as(service + " " + name + " sets " + key).isTrue();
                    assertThat(line.group(1)).as(service + " " + name + " " + key).isIn(value,
                            "${quarkus.datasource." + key + "}", "${quarkus.datasource." + key + ":}");
                });
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
