package dev.countersign.devsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * The Countersign provider jar (deploy/keycloak-extension) that LocalKeycloak's Keycloak runs with: its classes and
 * service files, read from this class path (a jar from the Maven repository, or the module's {@code target/classes} in
 * a reactor build before {@code package}). Written again as a jar with fixed entry times, and named by a hash of its
 * contents, so that the cached distribution is built again exactly when the provider changes.
 */
record KeycloakProvider(Map<String, byte[]> entries) {

    /** A class of the extension: where it is found is where the provider's files are. */
    private static final String MARKER = "dev/countersign/keycloak/SubjectClientMapper.class";
    static final String JAR_NAME = "countersign-keycloak-extension.jar";

    static KeycloakProvider fromClassPath() {
        URL marker = KeycloakProvider.class.getClassLoader().getResource(MARKER);
        if (marker == null) {
            throw new IllegalStateException(MARKER + " is not on the class path: dev-support depends on"
                    + " dev.countersign:keycloak-extension, build it first (./mvnw install -pl deploy/keycloak-extension)");
        }
        try {
            if ("jar".equals(marker.getProtocol())) {
                String file = marker.getPath().substring(0, marker.getPath().indexOf("!/"));
                try (FileSystem jar = FileSystems.newFileSystem(Path.of(URI.create(file)))) {
                    return new KeycloakProvider(read(jar.getPath("/")));
                }
            }
            Path classes = Path.of(marker.toURI());
            for (int i = 0; i < MARKER.split("/").length; i++) {
                classes = classes.getParent();
            }
            return new KeycloakProvider(read(classes));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the Keycloak provider at " + marker, e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, byte[]> read(Path root) throws IOException {
        Map<String, byte[]> entries = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                String name = root.relativize(file).toString().replace('\\', '/');
                // Maven's own metadata and the manifest change with every build, not with the provider.
                if (!name.startsWith("META-INF/maven/") && !name.equals("META-INF/MANIFEST.MF")) {
                    entries.put(name, Files.readAllBytes(file));
                }
            }
        }
        return entries;
    }

    /** The first 16 hexadecimal digits of a SHA-256 over the entries' names and contents. */
    String hash() {
        ByteArrayOutputStream named = new ByteArrayOutputStream();
        entries.forEach((name, bytes) -> {
            named.writeBytes(name.getBytes(StandardCharsets.UTF_8));
            named.write(0);
            named.writeBytes(bytes);
        });
        return KeycloakCache.sha256(named.toByteArray()).substring(0, 16);
    }

    /** Writes the jar into a distribution's {@code providers/} directory. */
    void writeInto(Path providers) throws IOException {
        Files.createDirectories(providers);
        try (OutputStream file = Files.newOutputStream(providers.resolve(JAR_NAME));
                ZipOutputStream jar = new ZipOutputStream(file)) {
            for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
                ZipEntry zipEntry = new ZipEntry(entry.getKey());
                zipEntry.setTime(0);
                jar.putNextEntry(zipEntry);
                jar.write(entry.getValue());
                jar.closeEntry();
            }
        }
    }
}
