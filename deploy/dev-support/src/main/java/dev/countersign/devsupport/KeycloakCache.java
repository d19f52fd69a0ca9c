package dev.countersign.devsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Keycloak's distribution and realm databases, kept outside {@code target/} so that {@code mvn clean} and every test
 * JVM reuse them: {@code ${user.home}/.cache/countersign/keycloak-26.5.6/} (or {@code $XDG_CACHE_HOME/countersign/...},
 * or {@code -Dcountersign.keycloak.cache=
 *
<dir>
 * }).
 * <ul>
 * <li>{@code dist-<hash>/}: the zip unpacked, Countersign's provider ({@link KeycloakProvider}) added to
 * {@code providers/}, and {@code kc.sh build} with {@link #BUILD_OPTIONS} run once (about 15 s); the hash names the
 * provider's contents and the options, so a change of either builds a new one (an older one stays until the cache is
 * deleted);</li>
 * <li>{@code snapshots/<sha-256 of the realm JSON>/}: the H2 database right after the realm was imported, so a changed
 * realm file imports again ({@code --import-realm} alone would silently keep the old one);</li>
 * <li>{@code .lock}: a file lock held while either is made, so concurrent JVMs (surefire and failsafe forks, the local
 * stack beside a test run) wait for each other. Both appear by an atomic rename of a finished temporary directory, so a
 * reader that sees them sees them whole and needs no lock.</li>
 * </ul>
 * Instances never run inside {@code dist-<hash>/}: each gets its own directory ({@link #layOut}) whose {@code lib},
 * {@code conf}, {@code themes} and {@code providers} are symbolic links to {@code dist-<hash>/} and whose {@code data/}
 * (H2, transaction logs, temporary files) is its own. Linux and macOS only (symbolic links, {@code kc.sh}).
 * <p>
 * The zip comes from the local Maven repository, where dev-support's dependency on
 * {@code org.keycloak:keycloak-quarkus-dist:26.5.6:zip} puts it: no copy into {@code target/} (157 MB per module and
 * clean build) and the modules that use this class need no plugin configuration of their own.
 * {@code -Dcountersign.keycloak.zip=<file>} overrides the lookup.
 */
final class KeycloakCache {

    static final String VERSION = "26.5.6";
    /**
     * {@code kc.sh build}'s options. Of the client registration endpoints only OpenID Connect's (RFC 7591) stays: the
     * {@code default} one takes a client id of the registrant's choosing (an API's audience, whose ID tokens would then
     * pass there as bearer tokens), the SAML one is not used.
     */
    static final List<String> BUILD_OPTIONS = List.of("--db=dev-file", "--health-enabled=true",
            "--spi-client-registration--default--enabled=false",
            "--spi-client-registration--saml2-entity-descriptor--enabled=false");

    private static final System.Logger LOG = System.getLogger(KeycloakCache.class.getName());
    private static final String ZIP_PATH = "org/keycloak/keycloak-quarkus-dist/" + VERSION
            + "/keycloak-quarkus-dist-" + VERSION + ".zip";
    /** One holder of the file lock per JVM: a second FileChannel.lock in the same JVM would throw, not wait. */
    private static final Object IN_JVM_LOCK = new Object();

    private final Path root;
    private final KeycloakProvider provider;

    private KeycloakCache(Path root, KeycloakProvider provider) {
        this.root = root;
        this.provider = provider;
    }

    static KeycloakCache inUserCache() {
        String configured = System.getProperty("countersign.keycloak.cache");
        Path base;
        if (configured != null && !configured.isBlank()) {
            base = Path.of(configured);
        } else {
            String xdg = System.getenv("XDG_CACHE_HOME");
            base = (xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache"))
                    .resolve("countersign");
        }
        return new KeycloakCache(base.resolve("keycloak-" + VERSION).toAbsolutePath(),
                KeycloakProvider.fromClassPath());
    }

    Path root() {
        return root;
    }

    /** The built distribution with this provider and these build options: {@code dist-<hash of both>}. */
    private Path dist() {
        return root.resolve("dist-" + sha256((provider.hash() + BUILD_OPTIONS).getBytes(StandardCharsets.UTF_8))
                .substring(0, 16));
    }

    /**
     * The saved database for this realm file, made first if missing: unpacks and builds the distribution when needed,
     * then starts Keycloak once with {@code --import-realm}, stops it and keeps its H2 files.
     */
    Path snapshotFor(byte[] realmJson) {
        Path snapshot = root.resolve("snapshots").resolve(sha256(realmJson));
        if (Files.isDirectory(snapshot) && Files.isDirectory(dist())) {
            return snapshot;
        }
        synchronized (IN_JVM_LOCK) {
            try {
                Files.createDirectories(root);
                try (FileChannel channel = FileChannel.open(root.resolve(".lock"), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
                        FileLock lock = channel.lock()) {
                    if (!Files.isDirectory(dist())) {
                        buildDistribution();
                    }
                    if (!Files.isDirectory(snapshot)) {
                        importRealm(realmJson, snapshot);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Could not prepare Keycloak in " + root, e);
            }
        }
        return snapshot;
    }

    /**
     * Makes {@code instance} runnable: its own copy of {@code kc.sh} (the script finds Keycloak's home from its own
     * path, so a copy, not a link), links to the built distribution, and a {@code data/} of its own.
     */
    void layOut(Path instance) throws IOException {
        Path dist = dist();
        Files.createDirectories(instance.resolve("bin"));
        Files.createDirectories(instance.resolve("data"));
        Path script = instance.resolve("bin/kc.sh");
        Files.copy(dist.resolve("bin/kc.sh"), script, StandardCopyOption.REPLACE_EXISTING);
        script.toFile().setExecutable(true);
        for (String shared : List.of("lib", "conf", "themes", "providers")) {
            Path link = instance.resolve(shared);
            Files.deleteIfExists(link);
            Files.createSymbolicLink(link, dist.resolve(shared));
        }
    }

    /**
     * Gives {@code instance} the realm's saved database unless it already holds one made from the same realm file (a
     * persistent directory of the local stack keeps its sessions and allowed redirect URIs across restarts; a changed
     * realm file replaces them).
     */
    void seed(Path instance, Path snapshot) throws IOException {
        Path marker = instance.resolve("data/realm.sha256");
        String wanted = snapshot.getFileName().toString();
        Path h2 = instance.resolve("data/h2");
        if (Files.isDirectory(h2) && Files.exists(marker) && Files.readString(marker).equals(wanted)) {
            return;
        }
        deleteRecursively(h2);
        deleteRecursively(instance.resolve("data/transaction-logs"));
        copyDirectory(snapshot, h2);
        Files.writeString(marker, wanted);
    }

    private void buildDistribution() throws IOException {
        long started = System.nanoTime();
        Path zip = locateZip();
        Path work = root.resolve("tmp-dist-" + UUID.randomUUID());
        try {
            unzip(zip, work);
            Path unpacked = work.resolve("keycloak-" + VERSION);
            provider.writeInto(unpacked.resolve("providers"));
            Path log = root.resolve("build.log");
            List<String> command = new ArrayList<>(List.of(unpacked.resolve("bin/kc.sh").toString(), "build"));
            command.addAll(BUILD_OPTIONS);
            ProcessBuilder builder = new ProcessBuilder(command).directory(unpacked.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
            LocalKeycloak.environment(builder.environment());
            Process build = builder.start();
            if (!build.waitFor(5, TimeUnit.MINUTES) || build.exitValue() != 0) {
                build.destroyForcibly();
                throw new IllegalStateException("kc.sh build failed; its output:\n" + LocalKeycloak.tail(log, 50));
            }
            Files.move(unpacked, dist(), StandardCopyOption.ATOMIC_MOVE);
            LOG.log(Level.INFO, "Keycloak {0} unpacked and built in {1} in {2} ms", VERSION, dist(),
                    (System.nanoTime() - started) / 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while building Keycloak", e);
        } finally {
            deleteRecursively(work);
        }
    }

    private void importRealm(byte[] realmJson, Path snapshot) throws IOException {
        long started = System.nanoTime();
        Path instance = root.resolve("tmp-import-" + UUID.randomUUID());
        try {
            layOut(instance);
            Path imports = Files.createDirectories(instance.resolve("data/import"));
            Files.write(imports.resolve("countersign-realm.json"), realmJson);
            LocalKeycloak.runOnceWithImport(instance);
            Path staged = root.resolve("snapshots").resolve("tmp-" + UUID.randomUUID());
            copyDirectory(instance.resolve("data/h2"), staged);
            try {
                Files.move(staged, snapshot, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException e) {
                deleteRecursively(staged);
            }
            LOG.log(Level.INFO, "Keycloak realm imported and saved as {0} in {1} ms", snapshot,
                    (System.nanoTime() - started) / 1_000_000);
        } finally {
            deleteRecursively(instance);
        }
    }

    private static Path locateZip() {
        String configured = System.getProperty("countersign.keycloak.zip");
        Path zip = configured != null && !configured.isBlank()
                ? Path.of(configured)
                : localRepository().resolve(ZIP_PATH);
        if (!Files.isRegularFile(zip)) {
            throw new IllegalStateException("Keycloak's distribution is not at " + zip
                    + ". It is a dependency of deploy/dev-support: let Maven fetch it once with"
                    + " `./mvnw -B -ntp -pl deploy/dev-support -am dependency:resolve` (or any build of that module),"
                    + " or point -Dcountersign.keycloak.zip at a copy of keycloak-quarkus-dist-" + VERSION + ".zip.");
        }
        return zip;
    }

    /** -Dmaven.repo.local (surefire passes Maven's own), else settings.xml's localRepository, else ~/.m2/repository. */
    private static Path localRepository() {
        String configured = System.getProperty("maven.repo.local");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        Path m2 = Path.of(System.getProperty("user.home"), ".m2");
        Path settings = m2.resolve("settings.xml");
        if (Files.isRegularFile(settings)) {
            try {
                Matcher matcher = Pattern.compile("<localRepository>\\s*([^<]+?)\\s*</localRepository>")
                        .matcher(Files.readString(settings));
                if (matcher.find()) {
                    return Path.of(matcher.group(1).replace("${user.home}", System.getProperty("user.home")));
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Could not read " + settings, e);
            }
        }
        return m2.resolve("repository");
    }

    private static void unzip(Path zip, Path target) throws IOException {
        Path base = target.toAbsolutePath().normalize();
        try (ZipFile file = new ZipFile(zip.toFile())) {
            for (ZipEntry entry : Collections.list(file.entries())) {
                Path out = base.resolve(entry.getName()).normalize();
                if (!out.startsWith(base)) {
                    throw new IOException("Zip entry outside the target directory: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(out);
                    continue;
                }
                Files.createDirectories(out.getParent());
                try (InputStream in = file.getInputStream(entry)) {
                    Files.copy(in, out);
                }
                // java.util.zip does not restore Unix modes; the scripts are all that must run.
                if (entry.getName().endsWith(".sh")) {
                    out.toFile().setExecutable(true);
                }
            }
        }
    }

    private static void copyDirectory(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                // H2's lock and trace files belong to the process that wrote them.
                if (Files.isRegularFile(file) && !name.endsWith(".lock.db") && !name.endsWith(".trace.db")) {
                    Files.copy(file, to.resolve(name), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /** Deletes a tree without following symbolic links (an instance's links point into the shared distribution). */
    static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
