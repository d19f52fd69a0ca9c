package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code .env} files {@code --infra} writes set the services' variables in dev mode only: Quarkus reads the same
 * file when a module's tests run, and a plain {@code OIDC_PUBLIC_KEY} there once stopped the executor's tests from
 * starting ("Set only one of OIDC_AUTH_SERVER_URL and OIDC_PUBLIC_KEY").
 */
class DevModeSettingsTest {

    @Test
    void everyVariableIsWrittenForTheDevProfileOnly(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("executor-service"));
        Files.createDirectories(root.resolve("agent-service"));

        DevModeSettings.write(root, Map.of("OIDC_PUBLIC_KEY", "abc", "EXECUTOR_PORT", "8081"),
                Map.of("AGENT_PORT", "8080"));

        assertThat(Files.readAllLines(root.resolve("executor-service/.env"))).filteredOn(line -> !line.startsWith("#"))
                .containsExactly("_DEV_EXECUTOR_PORT=8081", "_DEV_OIDC_PUBLIC_KEY=abc");
        assertThat(Files.readAllLines(root.resolve("agent-service/.env"))).filteredOn(line -> !line.startsWith("#"))
                .containsExactly("_DEV_AGENT_PORT=8080");
        // Secrets: readable by their user only.
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(root.resolve("executor-service/.env")))).isEqualTo("rw-------");
    }
}
