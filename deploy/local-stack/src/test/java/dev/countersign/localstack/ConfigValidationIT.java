package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The packaged services refuse to start on a setting their config mappings' constraints refuse (Hibernate Validator on
 * {@code @ConfigMapping}, checked by Quarkus at start-up before anything connects), naming each bad property and never
 * a secret's value. Run as the run command runs them: the jar from the build output, settings from the environment
 * variables docs/configuration.md names (the property's own name where it names none).
 */
class ConfigValidationIT {

    private static final Path ROOT = TestStacks.repositoryRoot();
    /** One character short (31), and long enough to be mistaken for a key: it must not appear in the output. */
    private static final String SHORT_SECRET = "a-csrf-secret-one-short-4f9a7c2";

    private record Refusal(int exitCode, String output) {
    }

    private static Process start(String module, Map<String, String> environment, Path output) throws IOException {
        Path jar = ROOT.resolve(module).resolve("target/quarkus-app/quarkus-run.jar");
        assertThat(jar).as("build %s first", module).isRegularFile();
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-jar", jar.toString()).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().putAll(environment);
        return builder.start();
    }

    private static Refusal awaitExit(Process process, Path output) throws Exception {
        boolean exited = process.waitFor(60, TimeUnit.SECONDS);
        if (!exited) {
            process.destroyForcibly();
        }
        assertThat(exited).as("the service refused to start within 60 s; see %s", output).isTrue();
        return new Refusal(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }

    @Test
    void eachServiceNamesEveryBadSettingAndNeverTheSecret() throws Exception {
        Path logs = Files.createDirectories(ROOT.resolve("deploy/local-stack/target/config-validation"));
        Process executor = start("executor-service", Map.of(
                "EXECUTOR_CSRF_SECRET", SHORT_SECRET,
                "COUNTERSIGN_ACTIONS_SWEEP_BATCH", "0",
                "ACTIONS_AGENT_WRITES_DEFAULT", "on",
                "ACTIONS_AUTO_APPLY_TURN_AMOUNT", "1.005",
                "READER_GRANT_MAX_LIFETIME", "P2D",
                "EVIDENCE_CLOCK_SKEW", "P365D"), logs.resolve("executor.log"));
        Process agent = start("agent-service", Map.of(
                "AGENT_CSRF_SECRET", SHORT_SECRET,
                "COUNTERSIGN_PLAN_WORK_MEM", "4MB'; SELECT 1; --",
                "MODEL_BREAKER_FAILURE_RATIO", "1.5",
                "TURNS_PER_PERSON", "0"), logs.resolve("agent.log"));

        Refusal executorRefusal = awaitExit(executor, logs.resolve("executor.log"));
        Refusal agentRefusal = awaitExit(agent, logs.resolve("agent.log"));

        assertThat(executorRefusal.exitCode()).isNotZero();
        assertThat(executorRefusal.output()).contains("Configuration validation failed")
                .contains("countersign.session.csrf-secret must be at least 32 characters")
                .contains("countersign.actions.sweep-batch must be greater than or equal to 1")
                .contains("countersign.actions.agent-writes-default must match")
                .contains("turn-amount must be an amount from 0 to 1000000000 with at most two decimals")
                .contains("countersign.reader-grants.max-lifetime must be shorter than or equal to 1 day")
                .contains("countersign.evidence.clock-skew must be shorter than or equal to 5 minutes")
                .doesNotContain(SHORT_SECRET);
        assertThat(agentRefusal.exitCode()).isNotZero();
        assertThat(agentRefusal.output()).contains("Configuration validation failed")
                .contains("countersign.session.csrf-secret must be at least 32 characters")
                .contains("countersign.plan.work-mem must be PostgreSQL memory")
                .contains("countersign.model.breaker.failure-ratio must be less than or equal to 1")
                .contains("countersign.limits.turns-per-person must be greater than or equal to 1")
                .doesNotContain(SHORT_SECRET);
        assertThat(List.of(executorRefusal.output(), agentRefusal.output()))
                .noneMatch(output -> output.contains("Listening on"));
    }
}
