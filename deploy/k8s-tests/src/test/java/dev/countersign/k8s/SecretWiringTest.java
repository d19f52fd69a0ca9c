package dev.countersign.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Which pod may read which credential. The agent pod gets the reader role, the plan role, the model key and its own
 * Kafka user, never a writer's or the owner's credential, nor the decision page's secrets; the owner's reaches only the
 * migration Job.
 */
@ParameterizedClass(name = "overlay {0}")
@FieldSource("dev.countersign.k8s.Manifests#OVERLAYS")
class SecretWiringTest {

    private static final String KAFKA_CA = "countersign-kafka-cluster-ca-cert";

    /** Production verifies PostgreSQL's certificate: its pods also read the cluster CA's public ca.crt. */
    private static final String DB_CA = "countersign-db-ca";

    /** The decision page's client secret at the identity provider, and its session and CSRF keys. */
    private static final Map<String, List<String>> DECISION_PAGE_SECRETS = Map.of(
            "EXECUTOR_OIDC_CLIENT_SECRET", List.of("countersign-executor-oidc", "client-secret"),
            "EXECUTOR_SESSION_SECRET", List.of("countersign-executor-session", "session-secret"),
            "EXECUTOR_CSRF_SECRET", List.of("countersign-executor-session", "csrf-secret"));

    /** The chat's own three, never the executor's. */
    private static final Map<String, List<String>> CHAT_SECRETS = Map.of(
            "AGENT_OIDC_CLIENT_SECRET", List.of("countersign-agent-oidc", "client-secret"),
            "AGENT_SESSION_SECRET", List.of("countersign-agent-session", "session-secret"),
            "AGENT_CSRF_SECRET", List.of("countersign-agent-session", "csrf-secret"));

    /** Secrets an operator writes (Strimzi: the cluster CA, one per KafkaUser; CloudNativePG: its CA). */
    private static final Set<String> WRITTEN_BY_OPERATORS = Set.of(KAFKA_CA, "countersign-agent",
            "countersign-executor", DB_CA);

    private final Manifests manifests;
    private final boolean prod;

    SecretWiringTest(String overlay) {
        this.manifests = Manifests.of(overlay);
        this.prod = overlay.equals("prod");
    }

    /** {@code secrets}, plus the database CA in production. */
    private String[] withDbCa(String... secrets) {
        if (!prod) {
            return secrets;
        }
        String[] all = java.util.Arrays.copyOf(secrets, secrets.length + 1);
        all[secrets.length] = DB_CA;
        return all;
    }

    @Test
    void agentPodReadsOnlyTheReaderAndPlanRolesTheModelKeyAndItsOwnKafkaUser() {
        assertThat(secretsOf(manifests.podSpec("Deployment", "agent-service"))).containsExactlyInAnyOrder(withDbCa(
                "countersign-db-agent", "countersign-db-plan", "countersign-model", "countersign-agent",
                "countersign-agent-oidc", "countersign-agent-session", KAFKA_CA));
    }

    @Test
    void executorPodReadsItsOwnCredentialsButNotTheOwnersNorTheModelKey() {
        assertThat(secretsOf(manifests.podSpec("Deployment", "executor-service"))).containsExactlyInAnyOrder(
                withDbCa("countersign-db-executor", "countersign-executor", "countersign-executor-external",
                        "countersign-executor-oidc", "countersign-executor-session", KAFKA_CA));
    }

    /**
     * Each page's three secrets reach its own service from required Secrets, by name and key, and nowhere as a literal
     * value: no ConfigMap names them, the Deployment sets them only from a Secret, and no other pod reads those Secrets
     * (the agent never the executor's, nor the executor the agent's; the Job neither).
     */
    @Test
    void eachPagesSecretsReachItsServiceFromRequiredSecretsOnly() {
        pageSecretsReachOnly("executor-service", DECISION_PAGE_SECRETS);
        pageSecretsReachOnly("agent-service", CHAT_SECRETS);
    }

    private void pageSecretsReachOnly(String service, Map<String, List<String>> secrets) {
        secrets.forEach((variable, secret) -> {
            Map<String, Object> ref = envSecretRef(service, variable);
            assertThat(ref).as(variable).containsEntry("name", secret.get(0)).containsEntry("key", secret.get(1));
            assertThat(String.valueOf(ref.get("optional"))).as("%s optional", variable).isNotEqualTo("true");
            for (Map<String, Object> configMap : manifests.ofKind("ConfigMap")) {
                assertThat(Node.map(configMap, "data")).as("%s in ConfigMap %s", variable,
                        Node.str(configMap, "metadata", "name")).doesNotContainKey(variable);
            }
        });
        for (Map<String, Object> c : Node.containers(manifests.podSpec("Deployment", service))) {
            for (Map<String, Object> env : Node.maps(c, "env")) {
                if (secrets.containsKey(Node.str(env, "name"))) {
                    assertThat(env).as("env %s", Node.str(env, "name")).doesNotContainKey("value");
                }
            }
        }
        String[] names = secrets.values().stream().map(nameAndKey -> nameAndKey.get(0)).distinct()
                .toArray(String[]::new);
        manifests.podSpecs().forEach((workload, pod) -> {
            if (!workload.equals("Deployment/" + service)) {
                assertThat(secretsOf(pod)).as(workload).doesNotContain(names);
            }
        });
    }

    /**
     * create-secrets.sh makes every Secret a pod requires that no operator writes (a manifest's {@code name:}, a
     * {@code kubectl create secret generic} or a {@code db_secret} line), so a fresh install following
     * docs/kubernetes.md starts; a Secret it forgot would keep the pod from starting.
     */
    @Test
    void createSecretsMakesEveryRequiredSecretNoOperatorWrites() throws IOException {
        String script = Files.readString(Manifests.repoRoot().resolve("deploy/k8s/create-secrets.sh"));
        manifests.podSpecs().forEach((workload, pod) -> {
            for (String secret : requiredSecretsOf(pod)) {
                if (!WRITTEN_BY_OPERATORS.contains(secret)) {
                    // A literal name, or a page's pair: "oidc_secret agent" makes countersign-agent-oidc.
                    String page = secret.replaceFirst("^countersign-(\\w+)-(oidc|session)$", "$2_secret $1");
                    assertThat(script).as("%s needs %s", workload, secret).containsPattern(
                            "(?m)(^\\s*name: |create secret generic |^db_secret )" + secret + "(?![\\w-])|^"
                                    + page + "(?![\\w-])");
                }
            }
        });
    }

    @Test
    void onlyTheMigrationJobReadsTheSchemaOwnersCredentials() {
        manifests.podSpecs().forEach((workload, pod) -> {
            if (!workload.equals("Job/countersign-migrate")) {
                assertThat(secretsOf(pod)).as(workload).doesNotContain("countersign-db-owner");
            }
        });
        assertThat(secretsOf(manifests.podSpec("Job", "countersign-migrate")))
                .containsExactlyInAnyOrder(withDbCa("countersign-db-owner"));
        assertThat(secretsOf(manifests.podSpec("Job", "countersign-migrate"))).as("the decision page's secrets")
                .doesNotContain("countersign-executor-oidc", "countersign-executor-session");
        assertThat(Node.str(manifests.get("ConfigMap", "executor-service-config"), "data",
                "QUARKUS_FLYWAY_MIGRATE_AT_START"))
                .as("the serving executor never migrates (it has no owner credentials)").isEqualTo("false");
    }

    @Test
    void eachServiceLogsInAsTheDatabaseRoleWhosePasswordItReads() {
        Map<String, String> roleSecrets = new java.util.HashMap<>();
        for (Map<String, Object> role : Node.maps(manifests.get("Cluster", "countersign-db"), "spec", "managed",
                "roles")) {
            roleSecrets.put(Node.str(role, "name"), Node.str(role, "passwordSecret", "name"));
        }
        assertThat(envSecret("agent-service", "AGENT_DB_PASSWORD")).isEqualTo(roleSecrets.get("countersign_agent"));
        assertThat(envSecret("agent-service", "AGENT_DB_USER")).isEqualTo(roleSecrets.get("countersign_agent"));
        // The plan datasource (a pool of its own) logs in as the plan role, never as the reader role.
        assertThat(envSecret("agent-service", "AGENT_PLAN_DB_PASSWORD")).isNotNull()
                .isEqualTo(roleSecrets.get("countersign_plan"));
        assertThat(envSecret("agent-service", "AGENT_PLAN_DB_USER")).isEqualTo(roleSecrets.get("countersign_plan"));
        assertThat(envSecretKey("agent-service", "AGENT_PLAN_DB_USER")).isEqualTo("username");
        assertThat(envSecretKey("agent-service", "AGENT_PLAN_DB_PASSWORD")).isEqualTo("password");
        assertThat(envSecret("executor-service", "EXECUTOR_DB_PASSWORD"))
                .isEqualTo(roleSecrets.get("countersign_executor"));
        assertThat(envSecret("executor-service", "EXECUTOR_DB_USER"))
                .isEqualTo(roleSecrets.get("countersign_executor"));
        // Strimzi names a KafkaUser's Secret after the user.
        assertThat(envSecret("agent-service", "KAFKA_SASL_JAAS_CONFIG")).isEqualTo("countersign-agent");
        assertThat(envSecret("executor-service", "KAFKA_SASL_JAAS_CONFIG")).isEqualTo("countersign-executor");
        manifests.get("KafkaUser", "countersign-agent");
        manifests.get("KafkaUser", "countersign-executor");
    }

    /**
     * The prod profile has no default for these (ProdSecretsTest in each service; every {@code %prod.} property set to
     * a bare {@code ${VARIABLE}} in the service's application.properties): each comes from a Secret that must exist
     * (not {@code optional}), so a missing one stops the pod at start with the variable's name.
     */
    @Test
    void everySecretTheProdProfileRequiresComesFromARequiredSecret() throws IOException {
        List<String[]> required = new ArrayList<>();
        for (String service : List.of("agent-service", "executor-service")) {
            for (String variable : requiredByProdProfile(service)) {
                required.add(new String[]{service, variable});
            }
        }
        assertThat(required).extracting(w -> w[0] + " " + w[1]).contains("agent-service AGENT_DB_PASSWORD",
                "agent-service AGENT_PLAN_DB_PASSWORD", "agent-service OPENAI_API_KEY",
                "executor-service EXECUTOR_DB_PASSWORD", "executor-service EXECUTOR_OIDC_CLIENT_SECRET",
                "executor-service EXECUTOR_SESSION_SECRET", "executor-service EXECUTOR_CSRF_SECRET");
        for (String[] wiring : required) {
            Map<String, Object> ref = envSecretRef(wiring[0], wiring[1]);
            assertThat(ref).as("%s %s from a Secret", wiring[0], wiring[1]).isNotEmpty();
            assertThat(String.valueOf(ref.get("optional"))).as("%s %s optional", wiring[0], wiring[1])
                    .isNotEqualTo("true");
        }
    }

    /**
     * The migration Job runs the executor's image in the prod profile, which refuses to start without each variable it
     * has no default for: the Job sets every one (a placeholder, or the owner's Secret) without reading the serving
     * executor's Secrets, and turns the decision page off, which would need the identity provider it cannot reach.
     */
    @Test
    void theMigrationJobSetsEveryVariableTheProdProfileRequiresWithoutTheServicesSecrets() throws IOException {
        Map<String, Map<String, Object>> env = new java.util.HashMap<>();
        for (Map<String, Object> c : Node.containers(manifests.podSpec("Job", "countersign-migrate"))) {
            for (Map<String, Object> e : Node.maps(c, "env")) {
                env.put(Node.str(e, "name"), e);
            }
        }
        for (String variable : requiredByProdProfile("executor-service")) {
            assertThat(env).as("the Job sets %s", variable).containsKey(variable);
        }
        assertThat(Node.str(env.get("DECISION_PAGE_ENABLED"), "value")).isEqualTo("false");
        assertThat(env).as("no identity provider for a migration").doesNotContainKey("OIDC_AUTH_SERVER_URL");
    }

    /** The variables a service's prod profile has no default for: {@code %prod.x=${VARIABLE}}. */
    private static Set<String> requiredByProdProfile(String service) throws IOException {
        Set<String> required = new TreeSet<>();
        Pattern noDefault = Pattern.compile("(?m)^%prod\\.[^=\\s]+=\\$\\{([A-Z0-9_]+)}\\s*$");
        Matcher m = noDefault.matcher(Files.readString(
                Manifests.repoRoot().resolve(service + "/src/main/resources/application.properties")));
        while (m.find()) {
            required.add(m.group(1));
        }
        return required;
    }

    private Map<String, Object> envSecretRef(String deployment, String variable) {
        for (Map<String, Object> c : Node.containers(manifests.podSpec("Deployment", deployment))) {
            for (Map<String, Object> env : Node.maps(c, "env")) {
                if (variable.equals(Node.str(env, "name"))) {
                    return Node.map(env, "valueFrom", "secretKeyRef");
                }
            }
        }
        return Map.of();
    }

    @Test
    void configMapsHoldNoCredentials() {
        Pattern secretish = Pattern.compile("PASSWORD|SECRET|API_KEY|TOKEN$|JAAS|PRIVATE", Pattern.CASE_INSENSITIVE);
        for (Map<String, Object> configMap : manifests.ofKind("ConfigMap")) {
            for (String key : Node.map(configMap, "data").keySet()) {
                assertThat(secretish.matcher(key).find()).as("%s key %s", Node.str(configMap, "metadata", "name"), key)
                        .isFalse();
            }
        }
        assertThat(manifests.ofKind("Secret")).as("no Secret is committed; create-secrets.sh makes them").isEmpty();
    }

    private String envSecret(String deployment, String variable) {
        return envSecretField(deployment, variable, "name");
    }

    private String envSecretKey(String deployment, String variable) {
        return envSecretField(deployment, variable, "key");
    }

    private String envSecretField(String deployment, String variable, String field) {
        for (Map<String, Object> c : Node.containers(manifests.podSpec("Deployment", deployment))) {
            for (Map<String, Object> env : Node.maps(c, "env")) {
                if (variable.equals(Node.str(env, "name"))) {
                    return Node.str(env, "valueFrom", "secretKeyRef", field);
                }
            }
        }
        throw new AssertionError(deployment + " sets no " + variable);
    }

    /** Every Secret a pod can read: env, envFrom, secret volumes and projected volumes. */
    static Set<String> secretsOf(Map<String, Object> pod) {
        Set<String> secrets = new TreeSet<>();
        for (Map<String, Object> c : Node.containers(pod)) {
            for (Map<String, Object> env : Node.maps(c, "env")) {
                add(secrets, Node.str(env, "valueFrom", "secretKeyRef", "name"));
            }
            for (Map<String, Object> envFrom : Node.maps(c, "envFrom")) {
                add(secrets, Node.str(envFrom, "secretRef", "name"));
            }
        }
        for (Map<String, Object> volume : Node.maps(pod, "volumes")) {
            add(secrets, Node.str(volume, "secret", "secretName"));
            for (Map<String, Object> source : Node.maps(volume, "projected", "sources")) {
                add(secrets, Node.str(source, "secret", "name"));
            }
        }
        for (Map<String, Object> pullSecret : Node.maps(pod, "imagePullSecrets")) {
            add(secrets, Node.str(pullSecret, "name"));
        }
        return secrets;
    }

    /** The Secrets a pod cannot start without: every reference not marked optional. */
    static Set<String> requiredSecretsOf(Map<String, Object> pod) {
        Set<String> secrets = new TreeSet<>();
        for (Map<String, Object> c : Node.containers(pod)) {
            for (Map<String, Object> env : Node.maps(c, "env")) {
                Map<String, Object> ref = Node.map(env, "valueFrom", "secretKeyRef");
                if (!"true".equals(String.valueOf(ref.get("optional")))) {
                    add(secrets, Node.str(ref, "name"));
                }
            }
            for (Map<String, Object> envFrom : Node.maps(c, "envFrom")) {
                if (!"true".equals(Node.str(envFrom, "secretRef", "optional"))) {
                    add(secrets, Node.str(envFrom, "secretRef", "name"));
                }
            }
        }
        for (Map<String, Object> volume : Node.maps(pod, "volumes")) {
            if (!"true".equals(Node.str(volume, "secret", "optional"))) {
                add(secrets, Node.str(volume, "secret", "secretName"));
            }
        }
        return secrets;
    }

    private static void add(Set<String> secrets, String name) {
        if (name != null) {
            secrets.add(name);
        }
    }
}
