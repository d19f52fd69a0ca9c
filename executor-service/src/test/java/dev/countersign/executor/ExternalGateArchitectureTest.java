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
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The runtime gate holds only if nothing else can reach a vendor: no class of executor-service outside
 * {@code external/egress} refers to a raw mail or HTTP client (read from the class files' constant pools, where every
 * referenced type is named).
 */
class ExternalGateArchitectureTest {

    private static final String GATE = "dev/countersign/executor/external/egress/";
    /** Types (or packages, ending in '/') through which a process reaches a mail server or any network peer. */
    private static final List<String> RAW_CLIENTS = List.of("io/quarkus/mailer/Mailer",
            "io/quarkus/mailer/MailTemplate",
            "io/quarkus/mailer/reactive/", "io/vertx/ext/mail/", "io/vertx/mutiny/ext/mail/", "jakarta/mail/Transport",
            "java/net/http/HttpClient", "java/net/HttpURLConnection", "java/net/URLConnection", "java/net/URL",
            "java/net/Socket", "java/nio/channels/SocketChannel", "io/vertx/core/http/HttpClient",
            "io/vertx/mutiny/core/http/HttpClient", "io/vertx/core/net/NetClient", "io/vertx/mutiny/core/net/NetClient",
            "io/vertx/ext/web/client/", "io/vertx/mutiny/ext/web/client/", "jakarta/ws/rs/client/",
            "org/eclipse/microprofile/rest/client/", "io/quarkus/rest/client/reactive/QuarkusRestClientBuilder",
            "io/quarkus/rest/client/reactive/runtime/", "org/jboss/resteasy/reactive/client/",
            "javax/net/ssl/SSLSocket",
            "java/net/DatagramSocket", "java/nio/channels/AsynchronousSocketChannel",
            "io/vertx/core/http/WebSocketClient");

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
        String text = text(classFile);
        return RAW_CLIENTS.stream().filter(name -> refersTo(text, name))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /**
     * Whether a class file's text names {@code name}: a package prefix (ending in '/') anywhere, a type only as a whole
     * name (not {@code java/net/SocketTimeoutException} for {@code java/net/Socket}; a nested type counts).
     */
    private static boolean refersTo(String text, String name) {
        if (name.endsWith("/")) {
            return text.contains(name);
        }
        return Pattern.compile(Pattern.quote(name) + "(?![A-Za-z0-9_])").matcher(text).find();
    }

    private static String text(Path classFile) {
        try {
            return new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Every class file under {@code root} whose text names {@code type}. */
    private static Set<String> usersOf(Path root, String type) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(file -> file.toString().endsWith(".class"))
                    .filter(file -> refersTo(text(file), type))
                    .map(file -> root.relativize(file).toString())
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    @Test
    void onlyTheGateHoldsTheRawMailAndHttpClients() throws IOException {
        Map<String, Set<String>> users = rawClientUsers(Path.of("target", "classes"));

        assertThat(users).containsKeys(GATE + "GatedMailer.class", GATE + "GatedHttp.class");
        assertThat(users.keySet()).allSatisfy(name -> assertThat(name).startsWith(GATE));
    }

    /**
     * Scopes are opened by the claim-call-record paths only (an action's external call, a notification's send); the
     * gated clients are reached through a scope only (the kinds hold an {@code Egress}, never a client).
     */
    @Test
    void onlyTheClaimedCallPathOpensScopesAndOnlyScopesUseTheGatedClients() throws IOException {
        Path classes = Path.of("target", "classes");

        assertThat(usersOf(classes, GATE + "ExternalGate")).allSatisfy(name -> assertThat(name)
                .matches(GATE + ".*|dev/countersign/executor/execution/ExternalExecution(\\$.*)?\\.class"
                        + "|dev/countersign/executor/notification/NotificationSender(\\$.*)?\\.class"));
        assertThat(usersOf(classes, GATE + "GatedHttp")).allSatisfy(name -> assertThat(name).startsWith(GATE));
        assertThat(usersOf(classes, GATE + "GatedMailer")).allSatisfy(name -> assertThat(name).startsWith(GATE));
        assertThat(usersOf(classes, GATE + "ExternalGate"))
                .contains("dev/countersign/executor/execution/ExternalExecution.class");
        assertThat(usersOf(classes, "dev/countersign/executor/kind/Egress"))
                .contains("dev/countersign/executor/kinds/mail/send/SendMailKind.class",
                        "dev/countersign/executor/kinds/ticket/create/CreateTicketKind.class");
    }

    @Test
    void theScanFindsARawClientOutsideTheGateAndNotAMereSimilarName() throws IOException {
        Map<String, Set<String>> planted = rawClientUsers(Path.of("target", "test-classes"));

        assertThat(planted.get("dev/countersign/executor/PlantedVendorCall.class"))
                .contains("java/net/http/HttpClient", "io/quarkus/mailer/reactive/");
        assertThat(planted).doesNotContainKey("dev/countersign/executor/PlantedTimeoutHandling.class");
    }
}
