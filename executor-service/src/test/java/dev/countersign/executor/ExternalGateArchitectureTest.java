package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The runtime gate holds only if nothing else can reach a vendor: no class of executor-service outside
 * {@code external/gate} refers to a raw mail or HTTP client (read from the class files' constant pools, where every
 * referenced type is named).
 */
class ExternalGateArchitectureTest {

    private static final String GATE = "dev/countersign/executor/external/gate/";
    private static final List<String> RAW_CLIENTS = List.of("io/quarkus/mailer/Mailer", "io/quarkus/mailer/reactive/",
            "io/vertx/ext/mail", "io/vertx/mutiny/ext/mail", "java/net/http/HttpClient", "java/net/HttpURLConnection",
            "java/net/Socket", "io/vertx/core/http/HttpClient", "io/vertx/mutiny/core/http/HttpClient",
            "io/vertx/ext/web/client", "io/vertx/mutiny/ext/web/client", "jakarta/ws/rs/client/",
            "org/eclipse/microprofile/rest/client/");

    /** Class file name -> the raw clients it refers to, for every class under {@code root} that refers to one. */
    private static Map<String, Set<String>> rawClientUsers(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(file -> file.toString().endsWith(".class")).collect(Collectors.toMap(
                    file -> root.relativize(file).toString(), ExternalGateArchitectureTest::rawClientsIn))
                    .entrySet().stream().filter(entry -> !entry.getValue().isEmpty())
                    .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        }
    }

    private static Set<String> rawClientsIn(Path classFile) {
        try {
            String text = new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1);
            return RAW_CLIENTS.stream().filter(text::contains).collect(Collectors.toCollection(TreeSet::new));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void onlyTheGateHoldsTheRawMailAndHttpClients() throws IOException {
        Map<String, Set<String>> users = rawClientUsers(Path.of("target", "classes"));

        assertThat(users).containsKeys(GATE + "GatedMailer.class", GATE + "GatedHttp.class");
        assertThat(users.keySet()).allSatisfy(name -> assertThat(name).startsWith(GATE));
    }

    @Test
    void theScanFindsARawClientOutsideTheGate() throws IOException {
        Map<String, Set<String>> planted = rawClientUsers(Path.of("target", "test-classes"));

        assertThat(planted.get("dev/countersign/executor/PlantedVendorCall.class"))
                .contains("java/net/http/HttpClient", "io/quarkus/mailer/reactive/");
    }
}
