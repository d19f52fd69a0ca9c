package dev.countersign.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;

import dev.countersign.devsupport.DemoData;
import dev.countersign.devsupport.DevTokens;
import dev.countersign.devsupport.LocalKafka;
import dev.countersign.devsupport.LocalKeycloak;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.external.LocalSmtp;
import dev.countersign.devsupport.external.TicketStub;
import dev.countersign.devsupport.model.DemoModel;
import dev.countersign.devsupport.model.ModelServer;

/**
 * The whole system on one machine: PostgreSQL, Kafka (KRaft), the demo model, an SMTP server and a ticket system for
 * the external actions, executor-service and agent-service as two JVM processes, and the dev token endpoint.
 * PostgreSQL, Kafka and Keycloak start side by side (each spends much of its start waiting on disk or on its own
 * process, and together they take about as long as Keycloak alone); the services start one after another once those are
 * up (on 2 cores, JVMs booting at once slow each other down), and everything is stopped in reverse order.
 */
public final class LocalStack implements AutoCloseable {

    /** Demo wallets with fixed ids, so the README's walkthrough can name them. */
    public static final UUID ACME_CHECKING = UUID.fromString("00000000-0000-4000-8000-00000000a001");
    public static final UUID ACME_SAVINGS = UUID.fromString("00000000-0000-4000-8000-00000000a002");
    public static final UUID GLOBEX_OPERATING = UUID.fromString("00000000-0000-4000-8000-00000000b001");
    /** A support case of acme whose requestor the agent may e-mail (the stack's SMTP server receives it). */
    public static final UUID ACME_REFUND_CASE = UUID.fromString("00000000-0000-4000-8000-00000000c001");

    private final StackSettings settings;
    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private ModelServer model;
    private DevTokens tokens;
    private LocalKeycloak keycloak;
    private LocalPostgres postgres;
    private String bootstrapServers;
    private DevTokenServer tokenServer;
    private LocalSmtp smtp;
    private TicketStub tickets;
    private final Map<Integer, Map<String, String>> executorEnvironments = new HashMap<>();
    private final Map<Integer, ServiceProcess> executors = new HashMap<>();
    private final Map<Integer, Map<String, String>> agentEnvironments = new HashMap<>();
    private final Map<Integer, ServiceProcess> agents = new HashMap<>();
    private LocalKafka kafka;
    private StackFaults faults;

    private LocalStack(StackSettings settings) {
        this.settings = settings;
    }

    public static LocalStack start(StackSettings settings) {
        LocalStack stack = new LocalStack(settings);
        try {
            stack.startAll();
            return stack;
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    private void startAll() {
        createDirectories(settings.dataDirectory(), settings.logDirectory());
        tokens = loadOrCreateKeys(settings.dataDirectory().resolve("dev-keys"));

        if (settings.faultProxies()) {
            faults = StackFaults.start(settings);
            started.push(faults);
        }

        // Kafka and Keycloak start in the background while PostgreSQL starts here; each is stopped with the stack
        // even when the start fails half-way (its closer waits for its start).
        CompletableFuture<Void> kafkaStarted = null;
        if (settings.kafkaBootstrapServers() == null) {
            say("Kafka (KRaft)");
            kafkaStarted = inBackground("kafka-start", this::startKafka);
            CompletableFuture<Void> starting = kafkaStarted;
            started.push(() -> {
                awaitQuietly(starting);
                stopKafka();
            });
        }
        CompletableFuture<Void> keycloakStarted = null;
        if (settings.identityProvider()) {
            say("Keycloak (sign-in for the chat, the decision page and the API; first start unpacks it, about a"
                    + " minute)");
            // Keycloak posts second-device requests (CIBA) to the approval device, started once the executor is.
            URI channel = settings.secondDevices()
                    ? URI.create("http://127.0.0.1:" + settings.devicePort() + ApprovalDevice.CHANNEL_PATH)
                    : null;
            keycloakStarted = inBackground("keycloak-start", () -> keycloak = LocalKeycloak.start(
                    settings.keycloakPort(), settings.dataDirectory().resolve("keycloak"), channel));
            CompletableFuture<Void> starting = keycloakStarted;
            started.push(() -> {
                awaitQuietly(starting);
                if (keycloak != null) {
                    keycloak.close();
                }
            });
        }

        say("PostgreSQL");
        postgres = settings.postgresHost() == null
                ? LocalPostgres.start(settings.postgresPort(), settings.dataDirectory().resolve("postgres"))
                : LocalPostgres.external(settings.postgresHost(), settings.postgresPort(),
                        settings.postgresAdminUser(), settings.postgresAdminPassword());
        // A closer that reads the field: the fault suite may have stopped and started PostgreSQL since.
        started.push(() -> postgres.close());

        if (kafkaStarted != null) {
            await(kafkaStarted, "Kafka");
            bootstrapServers = faults == null ? kafka.bootstrapServers() : "localhost:" + faults.kafka().port();
        } else {
            bootstrapServers = settings.kafkaBootstrapServers();
        }

        String modelUrl = settings.openAiBaseUrl();
        if (modelUrl == null) {
            say("offline demo model");
            model = ModelServer.start(settings.modelPort(), new DemoModel());
            started.push(model);
            modelUrl = model.baseUrl();
        }

        say("SMTP server and ticket system (for e-mail and ticket actions)");
        smtp = LocalSmtp.start(settings.smtpPort());
        smtp.onAccepted(LocalStack::announce);
        started.push(smtp);
        tickets = TicketStub.start(settings.ticketPort());
        started.push(tickets);

        if (keycloakStarted != null) {
            await(keycloakStarted, "Keycloak");
        }

        // Without Keycloak the chat asks the dev token endpoint for its token from the browser (dev-only demo sign-in).
        List<String> uiOrigins = new ArrayList<>();
        for (int instance = 0; keycloak == null && instance < settings.agentInstances(); instance++) {
            uiOrigins.add("http://localhost:" + (settings.agentPort() + instance));
            uiOrigins.add("http://127.0.0.1:" + (settings.agentPort() + instance));
        }

        Map<String, String> common = new HashMap<>();
        common.put("KAFKA_BOOTSTRAP_SERVERS", bootstrapServers);
        common.putAll(bearerSignIn());
        common.put("SWAGGER_UI", "true");
        common.putAll(settings.telemetry());
        if (!settings.tracing()) {
            // No collector to send spans to: tracing off, rather than a warning per failed export.
            common.put("OTEL_SDK_DISABLED", "true");
        }

        for (int instance = 0; instance < settings.executorInstances(); instance++) {
            int port = settings.executorPort() + instance;
            if (!settings.infraOnly()) {
                say(serviceName("executor-service", instance));
            }
            Map<String, String> executor = new HashMap<>(common);
            executor.put("EXECUTOR_PORT", String.valueOf(port));
            executor.put("EXECUTOR_MANAGEMENT_PORT", String.valueOf(settings.executorManagementPort() + instance));
            executor.put("EXECUTOR_DB_REACTIVE_URL", servicesDatabaseUrl(postgres.reactiveUrl()));
            executor.put("EXECUTOR_DB_JDBC_URL", servicesDatabaseUrl(postgres.jdbcUrl()));
            // The packaged jars run the prod profile, which has no default secrets: each one is passed explicitly.
            executor.put("EXECUTOR_DB_PASSWORD", LocalPostgres.EXECUTOR_PASSWORD);
            executor.put("EXECUTOR_DB_OWNER_PASSWORD", LocalPostgres.OWNER_PASSWORD);
            executor.put("MAIL_ENABLED", "true");
            executor.put("MAIL_HOST", "127.0.0.1");
            executor.put("MAIL_PORT", String.valueOf(smtp.port()));
            executor.put("MAIL_START_TLS", "DISABLED");
            executor.put("TICKET_URL", tickets.url());
            // The people who may decide an action are e-mailed (to the local SMTP server, which prints what it accepts)
            // a link to this instance's decision page, and told at the webhook each named if its origin is on the
            // tenant's allow-list (docs/approvals.md).
            executor.put("NOTIFY_EMAIL", "true");
            executor.put("NOTIFY_WEBHOOK", "true");
            // Its webhook receivers, if any, are on this machine.
            executor.put("NOTIFY_WEBHOOK_PRIVATE_ADDRESSES", "true");
            executor.put("DECISION_PAGE_URL", "http://localhost:" + port);
            executor.putAll(decisionPage(port));
            executor.putAll(secondDevice());
            executor.putAll(settings.executorTuning());
            executorEnvironments.put(instance, executor);
            if (!settings.infraOnly()) {
                startExecutor(instance);
            }
        }

        if (settings.secondDevices() && !settings.infraOnly()) {
            say("approval device (second-device approvals)");
            startDevice();
        }

        if (settings.infraOnly()) {
            // The executor in dev mode migrates the database; the demo data follows.
            inBackground("demo-data", this::seedDemoDataOnceMigrated);
        } else {
            seedDemoData();
        }

        for (int instance = 0; instance < settings.agentInstances(); instance++) {
            int port = settings.agentPort() + instance;
            if (!settings.infraOnly()) {
                say(serviceName("agent-service", instance));
            }
            Map<String, String> agent = new HashMap<>(common);
            agent.put("AGENT_PORT", String.valueOf(port));
            agent.put("AGENT_MANAGEMENT_PORT", String.valueOf(settings.agentManagementPort() + instance));
            agent.put("AGENT_DB_REACTIVE_URL", servicesDatabaseUrl(postgres.reactiveUrl()));
            agent.put("AGENT_DB_PASSWORD", LocalPostgres.READER_PASSWORD);
            agent.put("AGENT_PLAN_DB_PASSWORD", LocalPostgres.PLAN_PASSWORD);
            agent.put("OPENAI_BASE_URL", modelUrl);
            agent.put("TOOLS_EXTERNAL_WRITES", "true");
            agent.putAll(settings.agentTuning());
            // No scheduled briefs: a brief published without a signed-in person carries no evidence, and the executor
            // refuses such conversation events (docs/security/evidence.md). GET /api/brief still builds one on request.
            agent.put("UI_EXECUTOR_URL", executorUrl());
            // Where the agent asks for reader grants: its database roles read a tenant only under one.
            agent.put("READER_GRANTS_EXECUTOR_URL", executorUrl());
            agent.putAll(chatSignIn(port));
            // Served over plain HTTP here: the MCP server's resource metadata must say so (docs/adr/0008).
            agent.put("MCP_FORCE_HTTPS", "false");
            if (keycloak != null) {
                // The MCP server exchanges its callers' tokens for evidence at Keycloak.
                agent.put("MCP_EVIDENCE_EXCHANGE", "true");
                agent.put("MCP_CLIENT_SECRET", LocalKeycloak.MCP_SERVER_CLIENT_SECRET);
            }
            // The offline demo model takes no key, but the prod profile requires one to be named.
            agent.put("OPENAI_API_KEY",
                    settings.openAiApiKey() != null ? settings.openAiApiKey() : "no-key-needed-for-the-demo-model");
            if (settings.openAiModel() != null) {
                agent.put("OPENAI_MODEL", settings.openAiModel());
            }
            agentEnvironments.put(instance, agent);
            if (!settings.infraOnly()) {
                startAgent(instance);
            }
        }

        tokenServer = DevTokenServer.start(settings.tokenPort(), this::bearer, uiOrigins);
        started.push(tokenServer);
        if (settings.infraOnly()) {
            DevModeSettings.write(settings.repositoryRoot(), executorEnvironments.get(0), agentEnvironments.get(0));
        }
    }

    /** Runs {@code start} on a thread of its own (a daemon: a hung start does not keep the JVM alive). */
    private static CompletableFuture<Void> inBackground(String name, Runnable start) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                start.run();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
        return done;
    }

    /** Waits for a background start; its failure is this stack's failure to start. */
    private static void await(CompletableFuture<Void> start, String what) {
        try {
            start.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new IllegalStateException(what + " did not start", e.getCause());
        }
    }

    private static void awaitQuietly(CompletableFuture<Void> start) {
        try {
            start.join();
        } catch (CompletionException e) {
            // Reported by await(), where the start was waited for.
        }
    }

    /**
     * How both services verify bearer tokens (and the executor the evidence on Kafka): with Keycloak, as in production
     * (its issuer URL, its JWKS); without it, the stack's dev signing key and issuer.
     */
    private Map<String, String> bearerSignIn() {
        if (keycloak == null) {
            // No identity provider URL to name in the MCP server's protected resource metadata (docs/adr/0008).
            return Map.of("OIDC_PUBLIC_KEY", tokens.publicKeyBase64(), "JWT_ISSUER", DevTokens.ISSUER,
                    "MCP_RESOURCE_METADATA", "false");
        }
        // The MCP server's metadata names the scope a client registers with and asks for (docs/mcp.md).
        return Map.of("OIDC_AUTH_SERVER_URL", keycloak.issuer(), "JWT_ISSUER", keycloak.issuer(), "MCP_SCOPE",
                LocalKeycloak.MCP_SCOPE);
    }

    /**
     * How the chat on agent instance {@code port} signs people in: through the local Keycloak (Authorization Code with
     * PKCE, a session cookie), with its callback and post-logout addresses registered there; without Keycloak, the
     * dev-only demo sign-in, which hands the page a bearer token from the dev token endpoint.
     */
    private Map<String, String> chatSignIn(int port) {
        Map<String, String> chat = new HashMap<>();
        // Dev-only secrets: the packaged jar runs the prod profile, which asks for them even with the sign-in off.
        chat.put("AGENT_OIDC_CLIENT_SECRET", LocalKeycloak.CHAT_CLIENT_SECRET);
        chat.put("AGENT_SESSION_SECRET", "local-stack-chat-session-secret-dev-only-0123456789");
        chat.put("AGENT_CSRF_SECRET", "local-stack-chat-csrf-secret-dev-only-0123456789");
        if (keycloak == null) {
            chat.put("CHAT_SIGN_IN", "false");
            chat.put("UI_DEV_TOKEN_URL", "http://localhost:%d/dev/token".formatted(settings.tokenPort()));
            return chat;
        }
        allowSignIn(LocalKeycloak.CHAT_CLIENT, port, "/callback");
        chat.put("CHAT_SIGN_IN", "true");
        return chat;
    }

    /**
     * A bearer token of a demo user for one service's audience ({@link dev.countersign.contracts.Audiences}): minted
     * with the dev key, or, with Keycloak, obtained from it by the password grant (the user must belong to
     * {@code tenant}). What the dev token endpoint hands out, and what tests call the APIs with.
     *
     * @throws IllegalArgumentException
     *             when Keycloak does not know the user or the user is in another tenant
     */
    public String bearer(String tenant, String user, String audience) {
        if (keycloak == null) {
            return tokens.mint(tenant, user, audience, DevTokenServer.LIFETIME);
        }
        String token;
        try {
            token = keycloak.bearer(audience, user);
        } catch (IllegalStateException e) {
            throw new IllegalArgumentException("Keycloak has no demo user " + user, e);
        }
        String claimed = JwtClaims.of(token).path("tenant").asText();
        if (!claimed.equals(tenant)) {
            throw new IllegalArgumentException("%s belongs to tenant %s, not %s".formatted(user, claimed, tenant));
        }
        return token;
    }

    /**
     * How executor instance on {@code port} serves the decision page: signed in through the local Keycloak, with its
     * callback and post-logout addresses registered there; off without Keycloak.
     */
    private Map<String, String> decisionPage(int port) {
        Map<String, String> page = new HashMap<>();
        // Dev-only secrets of the local stack: the packaged jar runs the prod profile, which has no defaults and asks
        // for them even with the page off.
        page.put("EXECUTOR_OIDC_CLIENT_SECRET", LocalKeycloak.DECISION_PAGE_CLIENT_SECRET);
        page.put("EXECUTOR_SESSION_SECRET", "local-stack-session-secret-dev-only-0123456789");
        page.put("EXECUTOR_CSRF_SECRET", "local-stack-csrf-secret-dev-only-0123456789");
        if (keycloak == null) {
            page.put("DECISION_PAGE_ENABLED", "false");
            return page;
        }
        allowSignIn(LocalKeycloak.DECISION_PAGE_CLIENT, port, "/decide/callback");
        // The page signs in at OIDC_AUTH_SERVER_URL, Keycloak's issuer (bearerSignIn).
        page.put("DECISION_PAGE_ENABLED", "true");
        page.put("DECISION_PAGE_CHAT_URL", agentUrl());
        return page;
    }

    /**
     * Second-device approvals (OpenID CIBA, docs/approvals.md), with Keycloak only: the executor's CIBA client and its
     * dev-only secret; people who chose it are asked on the approval device.
     */
    private Map<String, String> secondDevice() {
        if (keycloak == null || !settings.secondDevices()) {
            return Map.of();
        }
        return Map.of("SECOND_DEVICE", "true", "SECOND_DEVICE_CLIENT_SECRET",
                LocalKeycloak.SECOND_DEVICE_CLIENT_SECRET);
    }

    /**
     * The approval device, which Keycloak's CIBA channel posts to and where people sign in through Keycloak (its
     * callback registered there), reading what waits for them from the first executor.
     */
    private void startDevice() {
        allowSignIn(LocalKeycloak.APPROVAL_DEVICE_CLIENT, settings.devicePort(), "/callback");
        Map<String, String> environment = new HashMap<>();
        environment.put("DEVICE_PORT", String.valueOf(settings.devicePort()));
        environment.put("DEVICE_MANAGEMENT_PORT", String.valueOf(settings.deviceManagementPort()));
        environment.put("OIDC_AUTH_SERVER_URL", keycloak.issuer());
        environment.put("DEVICE_OIDC_CLIENT_SECRET", LocalKeycloak.APPROVAL_DEVICE_CLIENT_SECRET);
        environment.put("DEVICE_SESSION_SECRET", "local-stack-device-session-secret-dev-only-0123456789");
        environment.put("DEVICE_EXECUTOR_URL", executorUrl());
        ServiceProcess device = ServiceProcess.start(ApprovalDevice.NAME, jar(ApprovalDevice.MODULE), environment,
                settings.logDirectory().resolve(ApprovalDevice.NAME + ".log"), settings.deviceManagementPort());
        started.push(device);
    }

    /** The approval device's page (second-device approvals), with Keycloak only. */
    public String deviceUrl() {
        return "http://localhost:" + settings.devicePort();
    }

    /**
     * Lets Keycloak send people back to a page served on {@code port} (both host names the browser may use): its
     * sign-in callback, and its {@code /signed-out.html} after logout.
     */
    private void allowSignIn(String client, int port, String callbackPath) {
        for (String host : List.of("localhost", "127.0.0.1")) {
            String origin = "http://%s:%d".formatted(host, port);
            keycloak.allowRedirectUri(client, origin + callbackPath);
            keycloak.allowPostLogoutRedirectUri(client, origin + "/signed-out.html");
        }
    }

    private void startAgent(int instance) {
        agents.put(instance, startService("agent-service", instance, agentEnvironments.get(instance),
                settings.agentManagementPort()));
    }

    private void startExecutor(int instance) {
        executors.put(instance, startService("executor-service", instance, executorEnvironments.get(instance),
                settings.executorManagementPort()));
    }

    /** {@code agent-service}, {@code agent-service-2}, ...: a service instance's name, for its log and the banner. */
    private static String serviceName(String module, int instance) {
        return instance == 0 ? module : module + "-" + (instance + 1);
    }

    /**
     * Instance {@code instance} of {@code module}'s packaged jar, started and ready (stopped when the stack closes).
     */
    private ServiceProcess startService(String module, int instance, Map<String, String> environment,
            int firstManagementPort) {
        String name = serviceName(module, instance);
        ServiceProcess process = ServiceProcess.start(name, jar(module), environment,
                settings.logDirectory().resolve(name + ".log"), firstManagementPort + instance);
        started.push(process);
        return process;
    }

    /** The database URL the services use: through the fault proxy when the stack runs one. */
    private String servicesDatabaseUrl(String url) {
        return faults == null ? url : url.replace(":" + postgres.port() + "/", ":" + faults.postgres().port() + "/");
    }

    private void startKafka() {
        kafka = LocalKafka.start(settings.kafkaPort(), settings.dataDirectory().resolve("kafka"),
                faults == null ? 0 : faults.kafka().port(), faults == null ? 0 : faults.kafkaControllerPort(),
                faults == null ? 0 : faults.kafkaDirectPort());
    }

    private void stopKafka() {
        if (kafka != null) {
            kafka.close();
            kafka = null;
        }
    }

    private StackFaults faults() {
        if (faults == null) {
            throw new IllegalStateException("This stack runs without fault proxies (FAULT_PROXIES=true)");
        }
        return faults;
    }

    /** The network between the services and Kafka (fault suite only). */
    public FaultProxy kafkaNetwork() {
        return faults().kafka();
    }

    /** The network between the services and PostgreSQL (fault suite only). */
    public FaultProxy postgresNetwork() {
        return faults().postgres();
    }

    /**
     * The broker's address for clients that must not go through the Kafka proxy (fault suite only): what the broker
     * holds while the proxy holds the services' traffic.
     */
    public String directBootstrapServers() {
        return "localhost:" + faults().kafkaDirectPort();
    }

    /** Stops the broker (a clean shutdown of the process's broker; its log directory stays). Fault suite only. */
    public synchronized void stopBroker() {
        faults();
        stopKafka();
    }

    /** Starts the broker again on the same ports and log directory. Fault suite only. */
    public synchronized void startBroker() {
        faults();
        startKafka();
    }

    /** Stops PostgreSQL (fast shutdown: open transactions are rolled back, clients disconnected). Fault suite only. */
    public synchronized void stopPostgres() {
        faults();
        postgres.close();
    }

    /** Starts PostgreSQL again on the same port and data directory. Fault suite only. */
    public synchronized void startPostgres() {
        faults();
        postgres = LocalPostgres.start(settings.postgresPort(), settings.dataDirectory().resolve("postgres"));
    }

    /** SIGKILL of agent {@code instance} (0-based), for the crash tests. */
    public void killAgent(int instance) {
        agents.get(instance).kill();
    }

    /** Starts agent {@code instance} again with its environment, and waits until it is ready. */
    public void restartAgent(int instance) {
        startAgent(instance);
    }

    /** SIGKILL of executor {@code instance} (0-based): no shutdown hook, no graceful stop. For the crash tests. */
    public void killExecutor(int instance) {
        executors.get(instance).kill();
    }

    /**
     * Stops executor {@code instance} gracefully (SIGTERM, up to 15 s, then SIGKILL), so that its Kafka consumers leave
     * their groups and the other instances take its partitions; {@link #restartExecutor} starts it again.
     */
    public void stopExecutor(int instance) {
        executors.get(instance).close();
    }

    /**
     * Starts executor {@code instance} again with its environment and {@code overrides} on top (kept for later
     * restarts), and waits until it is ready.
     */
    public void restartExecutor(int instance, Map<String, String> overrides) {
        executorEnvironments.get(instance).putAll(overrides);
        startExecutor(instance);
    }

    /**
     * The process id of each service JVM by its name ({@code executor-service}, {@code executor-service-2},
     * {@code agent-service}), executors first; a restarted service's current process.
     */
    public Map<String, Long> servicePids() {
        Map<String, Long> pids = new java.util.LinkedHashMap<>();
        executors.keySet().stream().sorted().map(executors::get)
                .forEach(process -> pids.put(process.name(), process.pid()));
        agents.keySet().stream().sorted().map(agents::get)
                .forEach(process -> pids.put(process.name(), process.pid()));
        return pids;
    }

    /** The stack's SMTP server: every e-mail the executor sent. */
    public LocalSmtp smtp() {
        return smtp;
    }

    /** The stack's ticket system. */
    public TicketStub tickets() {
        return tickets;
    }

    /** The demo model's server, when the stack runs it (null with a real model). */
    public ModelServer model() {
        return model;
    }

    /** What the stack was started with (ports, data and log directories). */
    public StackSettings settings() {
        return settings;
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** A connection as the executor's owner role, for tests that look around the services. */
    public java.sql.Connection ownerConnection() throws SQLException {
        return postgres.ownerConnection();
    }

    /** A connection as PostgreSQL's administrator, for benchmarks (the server's statistics, the grown database). */
    public java.sql.Connection adminConnection() throws SQLException {
        return postgres.adminConnection();
    }

    /**
     * The dev signing key's minter, for tests that need tokens the identity provider would not issue (expired, another
     * audience, a forged tenant). Only without Keycloak: with it the services trust Keycloak's keys only
     * ({@link #bearer}).
     */
    public DevTokens tokens() {
        if (keycloak != null) {
            throw new IllegalStateException("This stack signs in through Keycloak: its services refuse dev tokens");
        }
        return tokens;
    }

    /** The stack's Keycloak, or null when it runs without one ({@link StackSettings#identityProvider()}). */
    public LocalKeycloak keycloak() {
        return keycloak;
    }

    public String agentUrl() {
        return "http://localhost:" + settings.agentPort();
    }

    public String executorUrl() {
        return "http://localhost:" + settings.executorPort();
    }

    /** Every agent instance's URL (one unless {@code AGENT_INSTANCES} asked for more). */
    public java.util.List<String> agentUrls() {
        return java.util.stream.IntStream.range(0, settings.agentInstances())
                .mapToObj(i -> "http://localhost:" + (settings.agentPort() + i)).toList();
    }

    /** Every executor instance's URL (one unless {@code EXECUTOR_INSTANCES} asked for more). */
    public java.util.List<String> executorUrls() {
        return java.util.stream.IntStream.range(0, settings.executorInstances())
                .mapToObj(i -> "http://localhost:" + (settings.executorPort() + i)).toList();
    }

    public String tokenUrl() {
        return "http://localhost:%d/dev/token".formatted(tokenServer.port());
    }

    /**
     * Waits (on a daemon thread, for as long as the stack runs) until the executor in dev mode answers ready, which it
     * does once Flyway has migrated the database, then writes the demo data: under {@code --infra} the executor
     * migrates the database whenever it starts. A failure to write it is printed, and tried again at the executor's
     * next start.
     */
    private void seedDemoDataOnceMigrated() {
        boolean wasReady = false;
        while (!Thread.currentThread().isInterrupted()) {
            boolean isReady;
            try {
                isReady = ServiceProcess.isReady(settings.executorManagementPort());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (isReady && !wasReady) {
                try {
                    seedDemoData();
                    System.out.println("countersign: demo data written (the executor migrated the database)");
                } catch (RuntimeException e) {
                    System.out.println("countersign: the demo data could not be written: " + e);
                }
            }
            wasReady = isReady;
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void seedDemoData() {
        try (Connection owner = postgres.ownerConnection()) {
            DemoData.createWallet(owner, ACME_CHECKING, "acme", "alice", "Checking", "EUR");
            DemoData.createWallet(owner, ACME_SAVINGS, "acme", "alice", "Savings", "EUR");
            DemoData.createWallet(owner, GLOBEX_OPERATING, "globex", "carol", "Operating", "USD");
            DemoData.createSupportCase(owner, ACME_REFUND_CASE, "acme", "Refund for order 1042",
                    "requestor@example.org");
        } catch (SQLException e) {
            throw new IllegalStateException("Could not write the demo wallets", e);
        }
    }

    private Path jar(String module) {
        return settings.repositoryRoot().resolve(module).resolve("target/quarkus-app/quarkus-run.jar");
    }

    private static DevTokens loadOrCreateKeys(Path directory) {
        Path privateKey = directory.resolve("private.pem");
        Path publicKey = directory.resolve("public.pem");
        try {
            if (Files.isRegularFile(privateKey) && Files.isRegularFile(publicKey)) {
                return DevTokens.fromPem(Files.readString(privateKey), Files.readString(publicKey));
            }
            Files.createDirectories(directory);
            DevTokens fresh = DevTokens.generate();
            // The dev signing key: readable by this user only.
            Files.createFile(privateKey, java.nio.file.attribute.PosixFilePermissions
                    .asFileAttribute(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
            Files.writeString(privateKey, fresh.privateKeyPem());
            Files.writeString(publicKey, fresh.publicKeyPem());
            return fresh;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void createDirectories(Path... directories) {
        try {
            for (Path directory : directories) {
                Files.createDirectories(directory);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void announce(jakarta.mail.internet.MimeMessage message) {
        try {
            System.out.printf("countersign: the SMTP server received an e-mail to %s: \"%s\" (%s)%n",
                    java.util.Arrays.toString(message.getAllRecipients()), message.getSubject(),
                    message.getHeader("Message-ID") == null ? "no Message-ID" : message.getHeader("Message-ID")[0]);
        } catch (jakarta.mail.MessagingException e) {
            System.out.println("countersign: the SMTP server received an e-mail it cannot show: " + e.getMessage());
        }
    }

    private static void say(String what) {
        System.out.println("countersign: starting " + what + " ...");
    }

    /**
     * Stops everything that was started, newest first. The services are all asked to stop at once (each takes a few
     * seconds to close its consumers, more on a loaded machine), then waited for in order. Safe to call twice.
     */
    @Override
    public synchronized void close() {
        executors.values().forEach(ServiceProcess::requestStop);
        agents.values().forEach(ServiceProcess::requestStop);
        while (!started.isEmpty()) {
            try {
                started.pop().close();
            } catch (Exception e) {
                System.err.println("countersign: error while stopping: " + e.getMessage());
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Path root = Path.of(System.getProperty("countersign.repo.root", ".")).toAbsolutePath().normalize();
        StackSettings settings = StackSettings.fromEnvironment(root, System.getenv());
        LocalStack stack = start(settings);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("\ncountersign: stopping ...");
            stack.close();
            System.out.println("countersign: stopped; data kept in " + settings.dataDirectory());
            stopped.countDown();
        }, "countersign-shutdown"));
        System.out.println(settings.infraOnly() ? Banner.infraText(stack, settings) : Banner.text(stack, settings));
        stopped.await();
    }
}
