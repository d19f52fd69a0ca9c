package dev.countersign.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One packaged service, run as its own JVM process, its output in a log file. */
final class ServiceProcess implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final Process process;
    private final Path log;

    private ServiceProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** The services' JVM options, from this variable (the stack's settings, then the environment) when it is set. */
    static final String JAVA_OPTIONS = "SERVICE_JAVA_OPTIONS";
    static final String DEFAULT_JAVA_OPTIONS = "-Xmx384m";

    /** Starts the service and waits until its readiness probe (on its management port) answers 200. */
    static ServiceProcess start(String name, Path jar, Map<String, String> environment, Path log,
            int managementPort) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: build first (./mvnw -DskipTests package)");
        }
        try {
            Files.createDirectories(log.getParent());
            String java = ProcessHandle.current().info().command().orElse("java");
            List<String> command = new java.util.ArrayList<>(List.of(java));
            // An empty value means no options (not one empty argument, which java refuses).
            for (String option : environment.getOrDefault(JAVA_OPTIONS, System.getenv()
                    .getOrDefault(JAVA_OPTIONS, DEFAULT_JAVA_OPTIONS)).trim().split("\\s+")) {
                if (!option.isEmpty()) {
                    command.add(option);
                }
            }
            command.addAll(List.of("-jar", jar.toString()));
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            builder.environment().putAll(environment);
            ServiceProcess service = new ServiceProcess(name, builder.start(), log);
            service.awaitReady(managementPort, Duration.ofSeconds(90));
            return service;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start " + name, e);
        }
    }

    private void awaitReady(int managementPort, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + "; see " + log);
            }
            try {
                if (isReady(managementPort)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for " + name, e);
            }
            // Polled often: a stack waits for each of its services in turn, so every poll's slack adds up.
            sleep(50);
        }
        close();
        throw new IllegalStateException(name + " was not ready within " + timeout + "; see " + log);
    }

    /**
     * Whether the service whose management interface is on {@code managementPort} answers ready (for the executor: its
     * database migrated); false while nothing listens there.
     */
    static boolean isReady(int managementPort) throws InterruptedException {
        URI ready = URI.create("http://localhost:%d/q/health/ready".formatted(managementPort));
        try {
            return HTTP.send(HttpRequest.newBuilder(ready).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException notListening) {
            return false;
        }
    }

    String name() {
        return name;
    }

    /** The JVM's process id (the service runs as {@code java -jar}, no wrapper), for reading its memory in /proc. */
    long pid() {
        return process.pid();
    }

    /** SIGKILL, and waits until the process is gone. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(15, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGTERM without waiting: {@link #close()} waits, so that several services stop side by side. */
    void requestStop() {
        if (process.isAlive()) {
            process.destroy();
        }
    }

    /** SIGTERM, then up to 15 seconds for a graceful stop, then SIGKILL. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
