package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.Audiences;

/**
 * What docs/development.md tells a contributor, run: {@code ./run-local.sh --infra} (here the same stack,
 * infrastructure only), then {@code ./mvnw -pl executor-service quarkus:dev} and the same for the agent, each reading
 * the {@code .env} the stack wrote; each answers one call of its API (the agent's through the executor's reader grant,
 * on the demo data the stack writes once the executor in dev mode has migrated the database).
 * <p>
 * Opt-in, not part of {@code .ci/run}: the infrastructure and two dev-mode starts took 50 s on 2 cores, more than the
 * suite may grow by (30 s). Run it with
 * {@code ./mvnw -B verify -pl deploy/local-stack -am -Dtest=none -Dit.test=DevModeCheck
 * -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false}. It writes the two {@code .env}
 * files a running {@code --infra} wrote, and puts back what was there before. Not checked here: live reload (tried by
 * hand, docs/development.md says how) and the Dev UI.
 */
class DevModeCheck {

    private static final Duration START = Duration.ofMinutes(6);

    @Test
    void bothServicesStartInDevModeAgainstTheInfrastructureAndAnswer() throws Exception {
        Path root = TestStacks.repositoryRoot();
        Map<Path, String> before = saved(root);
        StackSettings settings = TestStacks.withExecutors(1, Map.of("COUNTERSIGN_INFRA_ONLY", "true"));
        try (LocalStack stack = LocalStack.start(settings)) {
            Process executor = devMode(root, "executor-service", settings.executorManagementPort() + 5);
            try {
                awaitReady(settings.executorManagementPort());
                Http.Answer kinds = Http.get(stack.executorUrl() + "/api/kinds",
                        stack.bearer("acme", "alice", Audiences.EXECUTOR));
                assertThat(kinds.status()).isEqualTo(200);
                assertThat(kinds.text()).contains("ledger.transaction.create");

                Process agent = devMode(root, "agent-service", settings.agentManagementPort() + 5);
                try {
                    awaitReady(settings.agentManagementPort());
                    String bearer = stack.bearer("acme", "alice", Audiences.AGENT);
                    await().atMost(Duration.ofSeconds(30)).until(
                            () -> Http.get(stack.agentUrl() + "/api/wallets", bearer).text().contains("Checking"));
                } finally {
                    stop(agent);
                }
            } finally {
                stop(executor);
            }
        } finally {
            restore(before);
        }
    }

    /** {@code ./mvnw -pl module quarkus:dev} from the repository root, as the docs say; its output in target/. */
    private static Process devMode(Path root, String module, int debugPort) throws IOException {
        Path log = root.resolve("deploy/local-stack/target/dev-mode-" + module + ".log");
        return new ProcessBuilder(List.of(root.resolve("mvnw").toString(), "-B", "-ntp", "-pl", module,
                "quarkus:dev", "-Dformat.skip=true", "-Denforcer.skip", "-Ddebug=" + debugPort,
                "-Dquarkus.analytics.disabled=true", "-Dquarkus.test.continuous-testing=disabled"))
                .directory(root.toFile()).redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.PIPE).start();
    }

    private static void awaitReady(int managementPort) {
        await().atMost(START).pollInterval(Duration.ofSeconds(2)).until(() -> ServiceProcess.isReady(managementPort));
    }

    /** Maven, the dev-mode JVM it forked and whatever that started. */
    private static void stop(Process process) throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        process.waitFor();
    }

    private static Map<Path, String> saved(Path root) throws IOException {
        Map<Path, String> saved = new HashMap<>();
        for (String module : List.of("executor-service", "agent-service")) {
            Path file = root.resolve(module).resolve(DevModeSettings.FILE);
            saved.put(file, Files.isRegularFile(file) ? Files.readString(file) : null);
        }
        return saved;
    }

    private static void restore(Map<Path, String> saved) throws IOException {
        for (var entry : saved.entrySet()) {
            if (entry.getValue() == null) {
                Files.deleteIfExists(entry.getKey());
            } else {
                Files.writeString(entry.getKey(), entry.getValue());
            }
        }
    }
}
