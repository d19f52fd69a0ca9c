package dev.countersign.devsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.json.Json;

/**
 * A real Keycloak 26.5.6 server (the {@code keycloak-quarkus-dist} zip from Maven Central, no container) with the
 * {@code countersign} realm, for the test suite and the local stack: the services sign people in against it with
 * Authorization Code + PKCE and verify its bearer tokens.
 * <p>
 * Dev and test only: one node ({@code --cache=local}), H2 ({@code --db=dev-file}), plain HTTP on 127.0.0.1, public
 * passwords and client secrets, a bootstrap administrator {@code admin}/{@code admin-dev-only} and a password-grant
 * test client. The realm ({@code keycloak/countersign-realm.json} beside this class) has these users, each with the
 * password {@code <name>-dev-only} ({@link #password}) and, but for erin, {@code sub} equal to the name:
 * <table>
 * <caption>Users</caption>
 * <tr>
 * <th>user</th>
 * <th>tenant</th>
 * <th>groups</th>
 * </tr>
 * <tr>
 * <td>alice, bob</td>
 * <td>acme</td>
 * <td>user, approver, admin</td>
 * </tr>
 * <tr>
 * <td>carol</td>
 * <td>globex</td>
 * <td>user, approver, admin</td>
 * </tr>
 * <tr>
 * <td>dave</td>
 * <td>acme</td>
 * <td>user</td>
 * </tr>
 * <tr>
 * <td>erin ({@code sub} {@value #ERIN_SUB}, not her username)</td>
 * <td>acme</td>
 * <td>user, approver</td>
 * </tr>
 * </table>
 * Clients: {@value #DECISION_PAGE_CLIENT} and {@value #CHAT_CLIENT} (confidential, standard flow only, PKCE S256
 * required, access tokens for their own audience; no redirect URI until {@link #allowRedirectUri} adds one) and
 * {@value #TEST_CLIENT} and {@value #TEST_AGENT_CLIENT} (public, password grant only, tokens for
 * {@code countersign-executor} and {@code countersign-agent} respectively; {@link #passwordGrant}, {@link #bearer}). No
 * client that signs anyone in has an API audience as its id: an ID token's audience is its client, so no ID token
 * passes as a bearer token. The API audiences are held by bearer-only clients of those names, so that nobody registers
 * one.
 * <p>
 * Second-device approvals (OpenID CIBA, docs/approvals.md): the realm's CIBA policy polls, with requests that live 120
 * s unless the client asks for less and a poll interval of 1 s; {@value #SECOND_DEVICE_CLIENT} is the executor's CIBA
 * client, whose tokens are for {@value #SECOND_DEVICE_AUDIENCE}, an audience no endpoint accepts; Keycloak posts each
 * request to the authentication channel {@link #start(int, Path, URI)} names (the approval device), where a person
 * signs in through {@value #APPROVAL_DEVICE_CLIENT}.
 * <p>
 * At every start it opens anonymous dynamic client registration to MCP clients on this machine (loopback redirect URIs,
 * the client scope {@value #MCP_SCOPE}, consent and PKCE required; {@link KeycloakAdmin#openMcpRegistration},
 * docs/mcp.md): about 2 s of the start, measured on a 2-core machine.
 * <p>
 * The distribution and a database with the realm already imported are cached outside {@code target/} (see
 * {@link KeycloakCache}); every instance runs on its own copy of that database in its own directory, where Keycloak's
 * output goes too ({@code keycloak.log}). Measured on a 2-core machine with Temurin 25 (LocalKeycloakTest prints it):
 * the very first start about 50 s (unpack and {@code kc.sh build} 16 s, realm import and save 22 s, start 12 s); with a
 * changed realm file 34 s; a warm start from the saved database 11 to 16 s. Two JVMs starting at once on an empty cache
 * (one builds and imports, the other waits on the lock) were both ready after about 2 min. About 285 MiB resident at
 * ready, 0.5 s to stop. Start it before a Quarkus application under test, not beside it: the start keeps a core busy.
 * <p>
 * Java: {@code -Dcountersign.keycloak.java.home} or {@code KEYCLOAK_JAVA_HOME} if set, else the Temurin 25 JDK at
 * {@code /usr/lib/jvm/temurin-25-jdk-amd64} when present, else the JVM running this code (Keycloak 26.5 supports 17, 21
 * and 25; a start on 17 worked in the spike behind docs/adr/0002, but this class was measured on 25).
 * <p>
 * The process is stopped by {@link #close()} and, if that never runs, by a shutdown hook; a JVM killed with SIGKILL
 * leaves it running (find it by the instance directory in its command line).
 */
public final class LocalKeycloak implements AutoCloseable {

    public static final String REALM = "countersign";
    /** The decision page's client (executor-service); its access tokens are for {@link Audiences#EXECUTOR}. */
    public static final String DECISION_PAGE_CLIENT = "countersign-decision-page";
    public static final String DECISION_PAGE_CLIENT_SECRET = "countersign-decision-page-dev-only-secret";
    /** The chat's client (agent-service); its access tokens are for {@link Audiences#AGENT}. */
    public static final String CHAT_CLIENT = "countersign-chat";
    public static final String CHAT_CLIENT_SECRET = "countersign-chat-dev-only-secret";
    /**
     * agent-service's MCP server: exchanges a person's MCP token for evidence of audience
     * {@link Audiences#MCP_EVIDENCE} (RFC 8693), the only audience it may ask for. Named apart from the MCP audience
     * ({@link Audiences#MCP}), so that its ID tokens open nothing; MCP tokens name it as a second audience, since
     * Keycloak exchanges only a token whose audiences include the requester.
     */
    public static final String MCP_SERVER_CLIENT = "countersign-mcp-exchange";
    public static final String MCP_SERVER_CLIENT_SECRET = "countersign-mcp-exchange-dev-only-secret";
    /** Public, code flow with PKCE: what a person's MCP client signs in with; tokens for {@link Audiences#MCP}. */
    public static final String MCP_CLIENT = "countersign-mcp-client";
    /**
     * The client scope an MCP client asks for (agent-service's {@code MCP_SCOPE}): {@value #MCP_CLIENT}'s audiences,
     * tenant and groups, for clients that registered themselves (dynamic registration, docs/mcp.md).
     */
    public static final String MCP_SCOPE = "countersign-mcp";
    /**
     * The hosts anonymous dynamic registration is accepted from (redundant while Keycloak listens on 127.0.0.1 only),
     * and the only ones a registered redirect URI may name.
     */
    static final List<String> REGISTRATION_HOSTS = List.of("127.0.0.1", "localhost");
    /** The executor's OpenID CIBA client (second-device approvals): backchannel requests and the CIBA grant only. */
    public static final String SECOND_DEVICE_CLIENT = "countersign-second-device";
    public static final String SECOND_DEVICE_CLIENT_SECRET = "countersign-second-device-dev-only-secret";
    /** The audience of a CIBA approval's access token, which no endpoint accepts as a bearer token. */
    public static final String SECOND_DEVICE_AUDIENCE = "countersign-second-device-approval";
    /** The approval device's sign-in client (deploy/approval-device); its access tokens are for the executor. */
    public static final String APPROVAL_DEVICE_CLIENT = "countersign-approval-device";
    public static final String APPROVAL_DEVICE_CLIENT_SECRET = "countersign-approval-device-dev-only-secret";
    /** erin's {@code sub}: not her username, as at most identity providers. */
    public static final String ERIN_SUB = "9b2f6d0e-4a45-4c1b-8e45-5ec0dde71ce5";
    /** Public, password grant only: must never exist in production. */
    public static final String TEST_CLIENT = "countersign-test-cli";
    /** Like {@value #TEST_CLIENT}, for the MCP server's audience. */
    public static final String TEST_MCP_CLIENT = "countersign-test-mcp-cli";
    /** Like {@value #TEST_MCP_CLIENT}, with access tokens that expire 5 s after they are issued. */
    public static final String TEST_MCP_SHORT_CLIENT = "countersign-test-mcp-short-cli";
    /** Like {@value #TEST_CLIENT}, for the agent's audience. */
    public static final String TEST_AGENT_CLIENT = "countersign-test-agent-cli";
    /** The master realm's bootstrap administrator, used by {@link #allowRedirectUri}. */
    public static final String ADMIN_USER = "admin";
    public static final String ADMIN_PASSWORD = "admin-dev-only";

    static final String REALM_RESOURCE = "keycloak/countersign-realm.json";

    private static final System.Logger LOG = System.getLogger(LocalKeycloak.class.getName());
    private static final Path TEMURIN_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    /**
     * Replaces all of kc.sh's JVM defaults (G1, 512 MB heap): serial GC, C1 only and a 128 MB heap halved the CPU of a
     * start (about one core instead of two) and kept it near 300 MB resident. The add-opens silences an
     * IllegalAccessError of jboss-threads on stop under Java 24+ and is harmless on 17.
     */
    private static final String JAVA_OPTS = "-XX:MaxMetaspaceSize=256m -Dfile.encoding=UTF-8"
            + " -XX:+ExitOnOutOfMemoryError -Djava.security.egd=file:/dev/urandom -XX:+UseSerialGC -Xms32m -Xmx128m"
            + " -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=64m --add-opens=java.base/java.lang=ALL-UNNAMED";

    private final Process process;
    private final Path directory;
    private final boolean throwAway;
    private final int port;
    private final HttpClient http;
    private final KeycloakAdmin admin;
    private final Thread shutdownHook;

    private LocalKeycloak(Process process, Path directory, boolean throwAway, int port, HttpClient http) {
        this.process = process;
        this.directory = directory;
        this.throwAway = throwAway;
        this.port = port;
        this.http = http;
        this.admin = new KeycloakAdmin(baseUrl(port), http);
        this.shutdownHook = new Thread(this::stop, "local-keycloak-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts Keycloak and returns once the realm answers its discovery document.
     *
     * @param port
     *            0 for any free port
     * @param dataDirectory
     *            null for a throw-away directory, deleted on close; otherwise the instance's directory, whose database
     *            (sessions, redirect URIs allowed at run time) survives a restart until the realm file changes
     */
    public static LocalKeycloak start(int port, Path dataDirectory) {
        return start(port, dataDirectory, null);
    }

    /**
     * Starts Keycloak as {@link #start(int, Path)} does, posting the backchannel authentication requests of CIBA to
     * {@code authenticationChannel} (Keycloak's HTTP authentication channel; none: such a request fails with 503).
     */
    public static LocalKeycloak start(int port, Path dataDirectory, URI authenticationChannel) {
        long started = System.nanoTime();
        KeycloakCache cache = KeycloakCache.inUserCache();
        Path snapshot = cache.snapshotFor(realmJson());
        Path directory = null;
        try {
            directory = dataDirectory != null
                    ? Files.createDirectories(dataDirectory.toAbsolutePath())
                    : Files.createTempDirectory("countersign-keycloak-");
            cache.layOut(directory);
            cache.seed(directory, snapshot);
            int httpPort = port > 0 ? port : FreePorts.one();
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            Process process = launch(directory, httpPort, false, authenticationChannel);
            try {
                awaitReady(process, http, httpPort, directory.resolve("keycloak.log"));
            } catch (RuntimeException e) {
                stop(process);
                throw e;
            }
            LocalKeycloak keycloak = new LocalKeycloak(process, directory, dataDirectory == null, httpPort, http);
            long registration = System.nanoTime();
            try {
                keycloak.openMcpRegistration();
            } catch (RuntimeException e) {
                keycloak.close();
                throw e;
            }
            LOG.log(Level.INFO, "Keycloak ready at {0} in {1} ms, {2} ms of it opening MCP registration (instance "
                    + "directory {3})", baseUrl(httpPort), (System.nanoTime() - started) / 1_000_000,
                    (System.nanoTime() - registration) / 1_000_000, directory);
            return keycloak;
        } catch (IOException e) {
            throw new UncheckedIOException("Keycloak did not start in " + directory, e);
        } catch (RuntimeException e) {
            if (dataDirectory == null && directory != null) {
                // Keep nothing of a failed throw-away instance but the message (which quotes the log).
                deleteQuietly(directory);
            }
            throw e;
        }
    }

    /** Opens (again) dynamic client registration to MCP clients on this machine; every start does. */
    void openMcpRegistration() {
        admin.openMcpRegistration(MCP_SCOPE, MCP_CLIENT, REGISTRATION_HOSTS);
    }

    /** {@code http://127.0.0.1:<port>/realms/countersign}, the {@code iss} of every token. */
    public String issuer() {
        return baseUrl(port) + "/realms/" + REALM;
    }

    public int port() {
        return port;
    }

    /** The dev-only password of a realm user: {@code <username>-dev-only}. */
    public static String password(String username) {
        return username + "-dev-only";
    }

    public String clientSecret(String clientId) {
        return switch (clientId) {
            case DECISION_PAGE_CLIENT -> DECISION_PAGE_CLIENT_SECRET;
            case CHAT_CLIENT -> CHAT_CLIENT_SECRET;
            case MCP_SERVER_CLIENT -> MCP_SERVER_CLIENT_SECRET;
            case SECOND_DEVICE_CLIENT -> SECOND_DEVICE_CLIENT_SECRET;
            case APPROVAL_DEVICE_CLIENT -> APPROVAL_DEVICE_CLIENT_SECRET;
            default -> throw new IllegalArgumentException(clientId + " has no secret (a public client or none)");
        };
    }

    /**
     * Lets a web client send people back to {@code redirectUri} (exact match; a trailing {@code *} would be a prefix),
     * through the admin REST API. For the services' callbacks on ports known only after start.
     */
    public void allowRedirectUri(String clientId, String redirectUri) {
        admin.allow(clientId, Set.of(redirectUri), Set.of());
    }

    /**
     * How long a CIBA request lives (the realm's policy, 120 s in the realm file). Keycloak 26.5 keeps each request for
     * this long whatever {@code requested_expiry} the client asked for (BackchannelAuthenticationEndpoint stores the
     * realm's value), so a test of an expiry shortens it here.
     */
    public void cibaExpiresIn(Duration lifetime) {
        admin.setRealmAttribute("cibaExpiresIn", Long.toString(lifetime.toSeconds()));
    }

    /** Lets RP-initiated logout of a web client end on {@code uri} ({@code post_logout_redirect_uri}). */
    public void allowPostLogoutRedirectUri(String clientId, String uri) {
        admin.allow(clientId, Set.of(), Set.of(uri));
    }

    /**
     * A bearer access token for {@code countersign-executor} by the resource-owner password grant on
     * {@value #TEST_CLIENT} (never a web client). Throws with Keycloak's answer when it refuses.
     */
    public String passwordGrant(String username, String password) {
        return passwordGrant(TEST_CLIENT, username, password);
    }

    /**
     * A bearer access token of a realm user (dev-only password, {@link #password}) for one service's audience,
     * {@link Audiences#EXECUTOR}, {@link Audiences#AGENT} or {@link Audiences#MCP}: each through its own test client,
     * so no token is valid for two.
     */
    public String bearer(String audience, String username) {
        return switch (audience) {
            case Audiences.EXECUTOR -> passwordGrant(TEST_CLIENT, username, password(username));
            case Audiences.AGENT -> passwordGrant(TEST_AGENT_CLIENT, username, password(username));
            case Audiences.MCP -> passwordGrant(TEST_MCP_CLIENT, username, password(username));
            default -> throw new IllegalArgumentException("No test client issues tokens for " + audience);
        };
    }

    /**
     * A bearer token for {@link Audiences#MCP} that expires 5 s after it is issued ({@value #TEST_MCP_SHORT_CLIENT}).
     */
    public String shortLivedMcpBearer(String username) {
        return passwordGrant(TEST_MCP_SHORT_CLIENT, username, password(username));
    }

    private String passwordGrant(String client, String username, String password) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(issuer() + "/protocol/openid-connect/token"))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(KeycloakAdmin.form(Map.of("grant_type", "password", "client_id", client, "username",
                        username, "password", password)))
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("Keycloak refused the password grant for " + username + ": HTTP "
                        + response.statusCode() + " " + response.body());
            }
            return Json.mapper().readTree(response.body()).get("access_token").asText();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    /** Keycloak's own output (stdout and stderr), in the instance directory. */
    public Path logFile() {
        return directory.resolve("keycloak.log");
    }

    /** Resident memory of the Keycloak JVM in KiB (Linux), for tests that report it; -1 when unknown. */
    long residentKilobytes() {
        return process.descendants().mapToLong(child -> {
            try {
                return Files.readAllLines(Path.of("/proc", Long.toString(child.pid()), "status")).stream()
                        .filter(line -> line.startsWith("VmRSS:"))
                        .mapToLong(line -> Long.parseLong(line.replaceAll("\\D", ""))).findFirst().orElse(0);
            } catch (IOException | RuntimeException e) {
                return 0;
            }
        }).filter(rss -> rss > 0).max().orElse(-1);
    }

    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running or has run.
        }
    }

    private void stop() {
        stop(process);
        if (throwAway) {
            deleteQuietly(directory);
        }
    }

    /** For {@link KeycloakCache}: starts an instance that imports the realm from data/import, then stops it. */
    static void runOnceWithImport(Path instance) throws IOException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        int port = FreePorts.one();
        Process process = launch(instance, port, true, null);
        try {
            awaitReady(process, http, port, instance.resolve("keycloak.log"));
        } finally {
            // H2 closes its file on SIGTERM; the caller copies it only after this returns.
            stop(process);
        }
    }

    private static Process launch(Path instance, int port, boolean importRealm, URI authenticationChannel)
            throws IOException {
        List<String> command = new ArrayList<>(List.of(instance.resolve("bin/kc.sh").toString(), "start",
                "--optimized", "--http-enabled=true", "--http-host=127.0.0.1", "--http-port=" + port,
                // Always set: the default management port 9000 clashes between instances.
                "--http-management-port=" + FreePorts.besides(port),
                // A fixed issuer: without it the issuer follows the Host header (localhost vs 127.0.0.1).
                "--hostname=" + baseUrl(port),
                // Without it `start` opens JGroups cluster ports on every interface and looks for peers.
                "--cache=local"));
        if (importRealm) {
            command.add("--import-realm");
        }
        if (authenticationChannel != null) {
            command.add("--spi-ciba-auth-channel--ciba-http-auth-channel--http-authentication-channel-uri="
                    + authenticationChannel);
        }
        ProcessBuilder builder = new ProcessBuilder(command).directory(instance.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(instance.resolve("keycloak.log").toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        environment(builder.environment());
        builder.environment().put("JAVA_OPTS", JAVA_OPTS);
        // Created with the realm database (the snapshot); ignored once the master realm has an administrator.
        builder.environment().put("KC_BOOTSTRAP_ADMIN_USERNAME", ADMIN_USER);
        builder.environment().put("KC_BOOTSTRAP_ADMIN_PASSWORD", ADMIN_PASSWORD);
        return builder.start();
    }

    /**
     * Keycloak reads KC_*, QUARKUS_* and kc.sh's own variables: none of the caller's may reach it. Nor may the caller's
     * {@code JDK_JAVA_OPTIONS}, which every JVM reads: Keycloak's options are kc.sh's or {@link #JAVA_OPTS}, and a
     * caller's collector next to kc.sh's default G1 stops {@code kc.sh build} ("Multiple garbage collectors selected";
     * the test command sets one, see run-tests.sh).
     */
    static void environment(Map<String, String> environment) {
        environment.keySet().removeIf(name -> name.startsWith("KC_") || name.startsWith("QUARKUS_")
                || name.startsWith("JAVA_OPTS")
                || Set.of("JDK_JAVA_OPTIONS", "JAVA", "JAVA_ADD_OPENS", "JAVA_LOCALE", "DEBUG",
                        "DEBUG_PORT", "DEBUG_SUSPEND", "PRINT_ENV").contains(name));
        environment.put("JAVA_HOME", javaHome().toString());
    }

    private static Path javaHome() {
        String configured = System.getProperty("countersign.keycloak.java.home", System.getenv("KEYCLOAK_JAVA_HOME"));
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        if (Files.isExecutable(TEMURIN_25.resolve("bin/java"))) {
            return TEMURIN_25;
        }
        return Path.of(System.getProperty("java.home"));
    }

    private static void awaitReady(Process process, HttpClient http, int port, Path log) {
        URI discovery = URI.create(baseUrl(port) + "/realms/" + REALM + "/.well-known/openid-configuration");
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Keycloak exited (code " + process.exitValue()
                        + ") before it was ready; the end of " + log + ":\n" + tail(log, 50));
            }
            try {
                HttpResponse<Void> response = http.send(
                        HttpRequest.newBuilder(discovery).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // Not listening yet.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for Keycloak", e);
            }
            sleep(200);
        }
        throw new IllegalStateException("Keycloak was not ready within " + READY_TIMEOUT.toSeconds()
                + " s; the end of " + log + ":\n" + tail(log, 50));
    }

    /** SIGTERM to kc.sh, which forwards it to the JVM (0.5 s with a local cache); SIGKILL to both after 15 s. */
    private static void stop(Process process) {
        List<ProcessHandle> children = process.descendants().toList();
        process.destroy();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                children.forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
            for (ProcessHandle child : children) {
                child.onExit().get(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            children.forEach(ProcessHandle::destroyForcibly);
        }
    }

    static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(could not read " + log + ": " + e.getMessage() + ")";
        }
    }

    private static byte[] realmJson() {
        try (InputStream in = LocalKeycloak.class.getResourceAsStream(REALM_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(REALM_RESOURCE + " is not on the class path beside LocalKeycloak");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String baseUrl(int port) {
        return "http://127.0.0.1:" + port;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for Keycloak", e);
        }
    }

    private static void deleteQuietly(Path directory) {
        try {
            KeycloakCache.deleteRecursively(directory);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "Could not delete " + directory, e);
        }
    }
}
