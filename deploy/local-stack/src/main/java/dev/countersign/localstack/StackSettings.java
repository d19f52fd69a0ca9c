package dev.countersign.localstack;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Everything the local stack can be told, from environment variables, with the defaults docs/configuration.md
 * documents.
 *
 * @param dataDirectory
 *            PostgreSQL data, Kafka logs, the dev signing key and the service logs; survives restarts
 * @param agentInstances
 *            how many agent-service processes to run; instance i listens on agentPort + i
 * @param executorInstances
 *            how many executor-service processes to run; instance i listens on executorPort + i
 * @param agentManagementPort
 *            agent instance i serves /q/ (health, metrics, OpenAPI) on agentManagementPort + i, not on its API port
 * @param executorManagementPort
 *            executor instance i serves /q/ on executorManagementPort + i
 * @param kafkaBootstrapServers
 *            an existing broker to use instead of starting one (null: start one)
 * @param postgresHost
 *            an existing PostgreSQL server to use instead of starting one (null: start one); the
 *            {@code PGUSER}/{@code PGPASSWORD} administrator creates the database and roles on it
 * @param openAiBaseUrl
 *            a real model endpoint (null: start the offline demo model)
 * @param telemetry
 *            observability settings passed to both services when set: an OTLP collector for traces, JSON logs
 * @param keycloakPort
 *            the local Keycloak (the identity provider people sign in with on the decision page); 0: no Keycloak, and
 *            the decision page is off (an API-only stack: bearer tokens from the dev token endpoint still work)
 * @param approvalDevice
 *            whether the stack runs the approval device and turns second-device approvals on (docs/approvals.md), with
 *            Keycloak only ({@code APPROVAL_DEVICE}, default true; the end-to-end tests turn it on where they need it)
 * @param devicePort
 *            the approval device's port; its management interface (readiness) listens on {@code deviceManagementPort}
 * @param faultProxies
 *            test tooling ({@code FAULT_PROXIES=true}): the services reach Kafka and PostgreSQL through a TCP proxy the
 *            fault suite can freeze or cut ({@link FaultProxy}); only with the stack's own broker and database
 * @param infraOnly
 *            {@code ./run-local.sh --infra}: everything but the two services, whose settings are written to each
 *            module's {@code .env} for {@code quarkus:dev} (docs/development.md)
 */
public record StackSettings(
        Path repositoryRoot,
        Path dataDirectory,
        int agentPort,
        int agentInstances,
        int executorPort,
        int executorInstances,
        int agentManagementPort,
        int executorManagementPort,
        int kafkaPort,
        int postgresPort,
        int modelPort,
        int tokenPort,
        String kafkaBootstrapServers,
        String postgresHost,
        String postgresAdminUser,
        String postgresAdminPassword,
        String openAiBaseUrl,
        String openAiApiKey,
        String openAiModel,
        int smtpPort,
        int ticketPort,
        Map<String, String> executorTuning,
        Map<String, String> agentTuning,
        Map<String, String> telemetry,
        int keycloakPort,
        boolean approvalDevice,
        int devicePort,
        int deviceManagementPort,
        boolean faultProxies,
        boolean infraOnly) {

    /**
     * Executor settings the stack passes on when they are set (decision window, tiers, undo, external calls,
     * notifications).
     */
    static final List<String> EXECUTOR_TUNING = List.of("ACTIONS_AGENT_WRITES_DEFAULT", "ACTIONS_MAX_TTL",
            "ACTIONS_TRUST_AFTER",
            "ACTIONS_UNDO_WINDOW", "MAIL_TIMEOUT", "TICKET_TIMEOUT", "TICKET_ATTEMPTS", "EXTERNAL_STALE_AFTER",
            "EXTERNAL_RECOVERY_INTERVAL", "NOTIFY_DELAY", "NOTIFY_LEASE", "SECOND_DEVICE_REQUEST_EXPIRY");

    /** Agent settings the stack passes on when they are set (how long a proposal waits for the broker, the guards). */
    static final List<String> AGENT_TUNING = List.of("PROPOSAL_PUBLISH_TIMEOUT", "PROPOSAL_DELIVERY_DEADLINE",
            "PROPOSAL_ATTEMPT_TIMEOUT_MS", "TURNS_PER_PERSON", "TURNS_WINDOW", "TURNS_IN_FLIGHT_PER_PERSON",
            "MCP_CALLS_PER_CLIENT",
            "MODEL_MAX_CONCURRENT_CALLS",
            "MODEL_BREAKER_REQUEST_VOLUME", "MODEL_BREAKER_FAILURE_RATIO", "MODEL_BREAKER_DELAY");

    /**
     * Observability settings both services get when set: {@code OTEL_EXPORTER_OTLP_ENDPOINT} (traces to a collector;
     * without it the services run with tracing off), {@code LOG_JSON}, and how soon spans are exported.
     */
    static final List<String> TELEMETRY = List.of("OTEL_EXPORTER_OTLP_ENDPOINT", "LOG_JSON",
            "QUARKUS_OTEL_BSP_SCHEDULE_DELAY");

    public static StackSettings fromEnvironment(Path repositoryRoot, Map<String, String> env) {
        Map<String, String> tuning = setOnes(env, EXECUTOR_TUNING);
        return new StackSettings(
                repositoryRoot,
                Path.of(env.getOrDefault("COUNTERSIGN_DATA_DIR", repositoryRoot.resolve(".countersign").toString())),
                port(env, "AGENT_PORT", 8080),
                port(env, "AGENT_INSTANCES", 1),
                port(env, "EXECUTOR_PORT", 8081),
                port(env, "EXECUTOR_INSTANCES", 1),
                port(env, "AGENT_MANAGEMENT_PORT", 9000),
                port(env, "EXECUTOR_MANAGEMENT_PORT", 9001),
                port(env, "KAFKA_PORT", 9092),
                port(env, "POSTGRES_PORT", 5432),
                port(env, "DEMO_MODEL_PORT", 8089),
                port(env, "DEV_TOKEN_PORT", 8079),
                blankToNull(env.get("KAFKA_BOOTSTRAP_SERVERS")),
                blankToNull(env.get("PGHOST")),
                env.getOrDefault("PGUSER", "postgres"),
                env.getOrDefault("PGPASSWORD", "postgres"),
                blankToNull(env.get("OPENAI_BASE_URL")),
                env.get("OPENAI_API_KEY"),
                env.get("OPENAI_MODEL"),
                port(env, "SMTP_PORT", 2525),
                port(env, "TICKET_PORT", 8077),
                tuning,
                setOnes(env, AGENT_TUNING),
                setOnes(env, TELEMETRY),
                port(env, "KEYCLOAK_PORT", 8180),
                Boolean.parseBoolean(env.getOrDefault("APPROVAL_DEVICE", "true").strip()),
                port(env, "APPROVAL_DEVICE_PORT", 8083),
                port(env, "APPROVAL_DEVICE_MANAGEMENT_PORT", 9003),
                Boolean.parseBoolean(env.getOrDefault("FAULT_PROXIES", "false").strip()),
                Boolean.parseBoolean(env.getOrDefault("COUNTERSIGN_INFRA_ONLY", "false").strip()));
    }

    /** Whether the stack runs Keycloak and with it the executor's decision page. */
    public boolean identityProvider() {
        return keycloakPort > 0;
    }

    /** Whether the stack runs the approval device (with Keycloak only) and turns second-device approvals on. */
    public boolean secondDevices() {
        return identityProvider() && approvalDevice;
    }

    /** Whether the services send traces (to {@code OTEL_EXPORTER_OTLP_ENDPOINT}). */
    public boolean tracing() {
        return telemetry.containsKey("OTEL_EXPORTER_OTLP_ENDPOINT");
    }

    /** The variables of {@code names} that {@code env} sets to something other than blanks. */
    private static Map<String, String> setOnes(Map<String, String> env, List<String> names) {
        Map<String, String> set = new java.util.TreeMap<>();
        for (String name : names) {
            if (blankToNull(env.get(name)) != null) {
                set.put(name, env.get(name).strip());
            }
        }
        return Map.copyOf(set);
    }

    public Path logDirectory() {
        return dataDirectory.resolve("logs");
    }

    private static int port(Map<String, String> env, String name, int fallback) {
        String value = env.get(name);
        return value == null || value.isBlank() ? fallback : Integer.parseInt(value.strip());
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }
}
