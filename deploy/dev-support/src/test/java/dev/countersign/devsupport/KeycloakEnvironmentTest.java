package dev.countersign.devsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** What of the caller's environment reaches Keycloak's processes (kc.sh build and start). */
class KeycloakEnvironmentTest {

    @Test
    void theCallersJvmAndKeycloakSettingsDoNotReachKeycloak() {
        Map<String, String> environment = new HashMap<>(Map.of(
                "JDK_JAVA_OPTIONS", "-XX:+UseSerialGC",
                "JAVA_OPTS", "-Xmx16m",
                "JAVA_OPTS_APPEND", "-XX:+UseZGC",
                "KC_DB", "postgres",
                "QUARKUS_HTTP_PORT", "1",
                "DEBUG", "true",
                "PATH", "/usr/bin",
                "HOME", "/home/someone"));

        LocalKeycloak.environment(environment);

        assertThat(environment).doesNotContainKeys("JDK_JAVA_OPTIONS", "JAVA_OPTS", "JAVA_OPTS_APPEND", "KC_DB",
                "QUARKUS_HTTP_PORT", "DEBUG")
                .containsEntry("PATH", "/usr/bin")
                .containsEntry("HOME", "/home/someone")
                .containsKey("JAVA_HOME");
    }
}
