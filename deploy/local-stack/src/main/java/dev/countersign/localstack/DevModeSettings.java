package dev.countersign.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * Under {@code ./run-local.sh --infra}: the settings each service would have been started with, written to
 * {@code executor-service/.env} and {@code agent-service/.env}, which Quarkus reads in dev mode
 * ({@code ./mvnw -pl executor-service quarkus:dev}). Each variable is written for the {@code dev} profile only
 * ({@code _DEV_NAME}, which SmallRye Config reads as {@code %dev.NAME}): Quarkus reads the same file when the module's
 * tests run, and there it must change nothing. The files hold the stack's dev-only secrets and keys; they are ignored
 * by git and rewritten at every start.
 */
final class DevModeSettings {

    static final String FILE = ".env";
    static final String DEV_PROFILE = "_DEV_";

    private DevModeSettings() {
    }

    static void write(Path repositoryRoot, Map<String, String> executor, Map<String, String> agent) {
        write(repositoryRoot.resolve("executor-service").resolve(FILE), executor);
        write(repositoryRoot.resolve("agent-service").resolve(FILE), agent);
    }

    private static void write(Path file, Map<String, String> environment) {
        StringBuilder text = new StringBuilder("# Written by ./run-local.sh --infra at " + Instant.now()
                + ": this machine's stack, for quarkus:dev (docs/development.md). DEV-ONLY secrets; not committed.\n");
        new TreeMap<>(environment).forEach((name, value) -> text.append(DEV_PROFILE).append(name).append('=')
                .append(value).append('\n'));
        try {
            // Readable by this user only: the file holds the stack's database and session secrets.
            Files.deleteIfExists(file);
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write " + file, e);
        }
    }
}
