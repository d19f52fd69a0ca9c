package dev.countersign.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/** Settings for a throw-away stack on free ports, and the free-port helpers the end-to-end tests share. */
final class TestStacks {

    private static final int LOWEST_PORT = 10_000;
    private static final int HIGHEST_PORT = 32_000;
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private TestStacks() {
    }

    /** A fresh data directory, free ports everywhere, {@code executorInstances} executors on adjacent ports. */
    static StackSettings withExecutors(int executorInstances) throws IOException {
        return withExecutors(executorInstances, Map.of());
    }

    /** Like {@link #withExecutors(int)}, with {@code overrides} on top of the environment it builds. */
    static StackSettings withExecutors(int executorInstances, Map<String, String> overrides) throws IOException {
        Map<String, String> env = new HashMap<>();
        env.put("COUNTERSIGN_DATA_DIR", dataDirectory().toString());
        env.put("EXECUTOR_INSTANCES", String.valueOf(executorInstances));
        env.put("EXECUTOR_PORT", String.valueOf(freePortPair()));
        env.put("AGENT_PORT", String.valueOf(freePortPair()));
        env.put("EXECUTOR_MANAGEMENT_PORT", String.valueOf(freePortPair()));
        env.put("AGENT_MANAGEMENT_PORT", String.valueOf(freePortPair()));
        for (String port : new String[]{"KAFKA_PORT", "POSTGRES_PORT", "DEMO_MODEL_PORT",
                "DEV_TOKEN_PORT", "SMTP_PORT", "TICKET_PORT", "APPROVAL_DEVICE_PORT",
                "APPROVAL_DEVICE_MANAGEMENT_PORT"}) {
            env.put(port, String.valueOf(freePort()));
        }
        // The ITs follow the confirmation flow, so actions wait for a person unless a test enables agent writes for its
        // tenant (LocalStackIT does, to see a LOW expense apply on arrival); the stack's own default is "enabled".
        env.put("ACTIONS_AGENT_WRITES_DEFAULT", "staged_only");
        // The soak and the hostile-model tests chat faster than a person may (TurnLimits: 20 a minute, 2 at once).
        env.put("TURNS_PER_PERSON", "100000");
        env.put("TURNS_IN_FLIGHT_PER_PERSON", "1000");
        // McpIT's tests share one test client, whose calls count against one per-client limit (TurnLimitsTest has it).
        env.put("MCP_CALLS_PER_CLIENT", "100000");
        // API-only unless a test asks for the decision page (WebUiIT): Keycloak costs 10 s and 290 MB a stack.
        env.put("KEYCLOAK_PORT", "0");
        // Nor the approval device, unless a test asks for it (SecondDeviceIT).
        env.put("APPROVAL_DEVICE", "false");
        env.putAll(overrides);
        return StackSettings.fromEnvironment(repositoryRoot(), env);
    }

    /**
     * A fresh data directory whose PostgreSQL data and Kafka logs (about 250 MB a stack) are deleted when the test JVM
     * exits, after every stack closed; the services' logs stay, for reading a failure.
     */
    private static Path dataDirectory() throws IOException {
        Path directory = Files.createTempDirectory("countersign-it");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteAllBut(directory, directory.resolve("logs"))));
        return directory;
    }

    private static void deleteAllBut(Path directory, Path kept) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder())
                    .filter(path -> !path.equals(directory) && !path.startsWith(kept))
                    .forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // Best effort: a leftover directory in the temp dir is no test failure.
        }
    }

    static Path repositoryRoot() {
        return Path.of(System.getProperty("countersign.repo.root", "../..")).toAbsolutePath().normalize();
    }

    /**
     * A port no other listener holds now, below the kernel's ephemeral range (32768 and up on Linux, 49152 on macOS),
     * and never the same one twice in this JVM. A stack binds its ports seconds after they are chosen; an ephemeral
     * port could be taken in between as the source port of any outgoing connection (the unit tests run beside these,
     * {@code
     * run-tests.sh}), and the unit tests' own listeners ask the kernel for ephemeral ones. Limit: a listener of another
     * process that picks a fixed port in this range in that window still wins it.
     */
    static int freePort() throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST_PORT, HIGHEST_PORT);
            if (bindable(port) && HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IOException("no free port between " + LOWEST_PORT + " and " + HIGHEST_PORT);
    }

    /** A port p such that p and p + 1 are both free now, as {@link #freePort()} chooses them. */
    static int freePortPair() throws IOException {
        for (int attempt = 0; attempt < 20; attempt++) {
            int port = freePort();
            if (bindable(port + 1) && HANDED_OUT.add(port + 1)) {
                return port;
            }
        }
        throw new IOException("no two adjacent free ports");
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket(port)) {
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
