package dev.countersign.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * One stack that several end-to-end test classes share, started by the first class that asks and stopped when the test
 * run ends: a stack costs 20 to 25 s to start on 2 cores, most of a short test class.
 * <p>
 * {@link #twoExecutors()}: the default settings ({@link TestStacks#withExecutors(int)}) with two executor instances and
 * two agent instances (a class that needs one talks to the first). A class on it keeps to a tenant of its own (a fresh
 * tenant id, its own wallets) and compares counts of that tenant only, so the order of the classes and what ran before
 * do not matter. A class may kill a process of it only if it starts that process again before it ends
 * (TwoExecutorsLoadIT), and may script the model only if it puts the demo model back when it ends (HostileModelIT);
 * classes that stop the broker or the database, hold the network, restart the whole stack or need other settings
 * (Keycloak, tracing, fault proxies, a short decision window) keep a stack of their own.
 * <p>
 * Limits: classes on it see each other's load (the services' memory and caches are warm, Kafka topics hold earlier
 * records), so a number that depends on a cold stack (a start time, the first minute's memory) is not measured on it. A
 * class that crashes a process and fails before restarting it leaves the stack broken for the classes after it; their
 * failures then name the process that is down, not their own behaviour. The stack is stopped by {@link Stopper}, a
 * JUnit launcher session listener (registered in META-INF/services), after every engine (Jupiter, jqwik) has run; a
 * test JVM killed with SIGKILL leaves its processes running, as a class's own stack would.
 */
final class SharedStacks {

    /**
     * The resource lock ({@code @ResourceLock}) of every Jupiter class on the shared stack: test classes run two at a
     * time (failsafe's configuration parameters), and this keeps the shared stack's classes one at a time (a load test
     * or a killed executor would disturb another class's timing, a scripted model its chat), next to a class with a
     * stack of its own.
     */
    static final String LOCK = "countersign.shared-stack";

    /**
     * The resource lock of the classes on the shared stack with Keycloak ({@link #withKeycloak()}): one at a time,
     * since one of them kills its executor while it runs.
     */
    static final String KEYCLOAK_LOCK = "countersign.keycloak-stack";
    /** How long a second-device request lives on the stack with Keycloak (its realm's CIBA expiry too). */
    static final Duration REQUEST_EXPIRY = Duration.ofSeconds(30);

    private static final Shared TWO_EXECUTORS = new Shared("The shared stack",
            () -> LocalStack.start(TestStacks.withExecutors(2, Map.of("AGENT_INSTANCES", "2"))));
    private static final Shared WITH_KEYCLOAK = new Shared("The shared stack with Keycloak", () -> {
        LocalStack stack = LocalStack.start(TestStacks.withExecutors(1, Map.of(
                "KEYCLOAK_PORT", String.valueOf(TestStacks.freePort()),
                "APPROVAL_DEVICE", "true",
                // At once: SecondDeviceIT asks nobody in the chat first.
                "NOTIFY_DELAY", "PT0S",
                "SECOND_DEVICE_REQUEST_EXPIRY", REQUEST_EXPIRY.toString())));
        // Keycloak keeps a CIBA request for its realm's expiry whatever the client asks for.
        stack.keycloak().cibaExpiresIn(REQUEST_EXPIRY);
        return stack;
    });

    private SharedStacks() {
    }

    /** The shared two-executor stack, started on the first call. */
    static LocalStack twoExecutors() {
        return TWO_EXECUTORS.get();
    }

    /**
     * The shared stack with Keycloak (McpIT, SecondDeviceIT), started on the first call: one executor and one agent,
     * the approval device, notifications due at once, second-device requests that live {@link #REQUEST_EXPIRY}. A
     * Keycloak stack costs about 45 s to start here. Its classes take {@link #KEYCLOAK_LOCK}, keep to what they created
     * and put back what they stop.
     */
    static LocalStack withKeycloak() {
        return WITH_KEYCLOAK.get();
    }

    static void stopAll() {
        TWO_EXECUTORS.stop();
        WITH_KEYCLOAK.stop();
    }

    /** How a stack is started. */
    @FunctionalInterface
    private interface Start {

        LocalStack start() throws IOException;
    }

    /** One shared stack: started on the first call, its failure remembered, stopped once. */
    private static final class Shared {

        private final String name;
        private final Start start;
        private LocalStack stack;
        private RuntimeException failure;

        Shared(String name, Start start) {
            this.name = name;
            this.start = start;
        }

        synchronized LocalStack get() {
            if (failure != null) {
                // One failed start is reported by every class that asked, without trying again for each of them.
                throw new IllegalStateException(name + " did not start", failure);
            }
            if (stack == null) {
                try {
                    stack = start.start();
                    // Only if the session listener never ran (a runner without launcher sessions); a no-op after it.
                    Runtime.getRuntime().addShutdownHook(new Thread(SharedStacks::stopAll, "shared-stacks-stop"));
                } catch (IOException e) {
                    failure = new UncheckedIOException(e);
                    throw failure;
                } catch (RuntimeException e) {
                    failure = e;
                    throw e;
                }
            }
            return stack;
        }

        synchronized void stop() {
            if (stack != null) {
                stack.close();
                stack = null;
            }
        }
    }

    /** Stops the shared stacks at the end of the launcher session (the whole test run of one JVM). */
    public static final class Stopper implements LauncherSessionListener {

        @Override
        public void launcherSessionClosed(LauncherSession session) {
            stopAll();
        }
    }
}
