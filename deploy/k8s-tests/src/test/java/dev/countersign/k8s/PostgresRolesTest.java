package dev.countersign.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
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
 * CloudNativePG: four login roles with their own secrets, none privileged; nobody else may connect. The plan role is
 * fenced at bootstrap by deploy/k8s/base/plan-role.sql, the file the local stack runs too.
 */
@ParameterizedClass(name = "overlay {0}")
@FieldSource("dev.countersign.k8s.Manifests#OVERLAYS")
class PostgresRolesTest {

    private final Manifests manifests;

    PostgresRolesTest(String overlay) {
        this.manifests = Manifests.of(overlay);
    }

    private static final String PLAN_ROLE = "countersign_plan";
    private static final String PLAN_ROLE_SQL = "deploy/k8s/base/plan-role.sql";

    @Test
    void ownerExecutorReaderAndPlanAreManagedRolesWithTheirOwnSecrets() {
        List<Map<String, Object>> roles = managedRoles();
        assertThat(roles).extracting(r -> Node.str(r, "name")).containsExactlyInAnyOrder("countersign_owner",
                "countersign_executor", "countersign_agent", PLAN_ROLE);
        assertThat(roles).extracting(r -> Node.str(r, "passwordSecret", "name")).doesNotHaveDuplicates()
                .containsExactlyInAnyOrder("countersign-db-owner", "countersign-db-executor", "countersign-db-agent",
                        "countersign-db-plan");
        for (Map<String, Object> role : roles) {
            for (String privilege : List.of("superuser", "bypassrls", "createrole", "createdb", "replication")) {
                assertThat(Node.str(role, privilege)).as("%s %s", Node.str(role, "name"), privilege).isEqualTo("false");
            }
            assertThat(Node.str(role, "login")).isEqualTo("true");
            assertThat(Node.str(role, "ensure")).isEqualTo("present");
        }
    }

    /**
     * Each agent pod opens up to its pool size per role; the most pods at once ({@link #podsAtMost}) must fit the
     * role's limit.
     */
    @Test
    void theAgentsRolesAdmitEveryPoolTheAutoscalerCanStart() {
        Map<String, Object> agentConfig = Node.map(manifests.get("ConfigMap", "agent-service-config"), "data");
        int maxPods = podsAtMost("agent-service");
        for (String[] pool : new String[][]{{"countersign_agent", "AGENT_DB_POOL_SIZE"},
                {PLAN_ROLE, "AGENT_PLAN_DB_POOL_SIZE"}}) {
            assertThat(agentConfig).as("agent-service-config").containsKey(pool[1]);
            assertThat(role(pool[0])).as("%s has a connection limit", pool[0]).containsKey("connectionLimit");
            int poolSize = Integer.parseInt(String.valueOf(agentConfig.get(pool[1])));
            int limit = Integer.parseInt(Node.str(role(pool[0]), "connectionLimit"));
            assertThat(limit).as("%s connectionLimit against %d pods x %s %d", pool[0], maxPods, pool[1], poolSize)
                    .isGreaterThanOrEqualTo(maxPods * poolSize);
        }
    }

    /**
     * Each executor pod opens up to all its pools (main, HTTP, JDBC); the autoscaler's maximum, plus the pod a rolling
     * update adds, must fit the limit.
     */
    @Test
    void theExecutorsRoleAdmitsBothPoolsOfEveryPodTheAutoscalerCanStart() throws IOException {
        Map<String, Object> executorConfig = Node.map(manifests.get("ConfigMap", "executor-service-config"), "data");
        int maxPods = podsAtMost("executor-service");
        // The JDBC pool (migrations at start, the readiness check) is set in application.properties only.
        Matcher jdbc = Pattern.compile("(?m)^quarkus\\.datasource\\.jdbc\\.max-size=(\\d+)$").matcher(Files.readString(
                Manifests.repoRoot().resolve("executor-service/src/main/resources/application.properties")));
        assertThat(jdbc.find()).as("executor's JDBC pool size").isTrue();
        int perPod = Integer.parseInt(jdbc.group(1));
        for (String pool : List.of("EXECUTOR_DB_POOL_SIZE", "EXECUTOR_HTTP_DB_POOL_SIZE")) {
            assertThat(executorConfig).as("executor-service-config").containsKey(pool);
            perPod += Integer.parseInt(String.valueOf(executorConfig.get(pool)));
        }
        int limit = Integer.parseInt(Node.str(role("countersign_executor"), "connectionLimit"));
        assertThat(limit).as("countersign_executor connectionLimit against %d pods x %d", maxPods, perPod)
                .isGreaterThanOrEqualTo(maxPods * perPod);
    }

    /**
     * The most pods of a service at once: the autoscaler's maximum plus what a rolling update adds on top (maxSurge).
     * Limit: pods still terminating after a rollout are not counted.
     */
    private int podsAtMost(String service) {
        int maxReplicas = Integer.parseInt(
                Node.str(manifests.get("HorizontalPodAutoscaler", service), "spec", "maxReplicas"));
        String surge = Node.str(manifests.get("Deployment", service), "spec", "strategy", "rollingUpdate", "maxSurge");
        assertThat(surge).as("%s maxSurge as a number of pods", service).matches("\\d+");
        return maxReplicas + Integer.parseInt(surge);
    }

    @Test
    void theOwnerOwnsTheDatabaseAndNobodyElseConnectsOrUsesTheSuperuser() {
        Map<String, Object> initdb = Node.map(cluster(), "spec", "bootstrap", "initdb");
        assertThat(Node.str(initdb, "owner")).isEqualTo("countersign_owner");
        assertThat(Node.str(initdb, "secret", "name")).isEqualTo("countersign-db-owner");
        assertThat(Node.strs(initdb, "postInitApplicationSQL"))
                .contains("REVOKE ALL ON DATABASE countersign FROM PUBLIC",
                        "GRANT CONNECT ON DATABASE countersign TO countersign_executor, countersign_agent");
        assertThat(Node.str(cluster(), "spec", "enableSuperuserAccess")).isEqualTo("false");
    }

    /**
     * CloudNativePG runs postInitApplicationSQL, then postInitApplicationSQLRefs, as a superuser in the application
     * database: the plan role exists (NOLOGIN, like the other service roles) before plan-role.sql runs from a ConfigMap
     * whose data is that file, byte for byte. Its CONNECT comes from the file alone.
     */
    @Test
    void theClusterFencesThePlanRoleWithPlanRoleSqlAtBootstrap() throws IOException {
        Map<String, Object> initdb = Node.map(cluster(), "spec", "bootstrap", "initdb");
        List<String> inline = Node.strs(initdb, "postInitApplicationSQL");
        assertThat(inline).contains("CREATE ROLE " + PLAN_ROLE + " NOLOGIN");
        assertThat(inline).filteredOn(sql -> sql.contains(PLAN_ROLE)).as("granted in plan-role.sql, not inline")
                .containsExactly("CREATE ROLE " + PLAN_ROLE + " NOLOGIN");

        List<Map<String, Object>> refs = Node.maps(initdb, "postInitApplicationSQLRefs", "configMapRefs");
        assertThat(refs).hasSize(1);
        assertThat(Node.maps(initdb, "postInitApplicationSQLRefs", "secretRefs")).isEmpty();
        Map<String, Object> configMap = manifests.get("ConfigMap", Node.str(refs.get(0), "name"));
        assertThat(Node.str(configMap, "metadata", "namespace")).as("the Cluster's namespace")
                .isEqualTo(Node.str(cluster(), "metadata", "namespace"));
        String file = Files.readString(Manifests.repoRoot().resolve(PLAN_ROLE_SQL));
        assertThat(Node.str(configMap, "data", Node.str(refs.get(0), "key"))).as("the ConfigMap's copy of %s",
                PLAN_ROLE_SQL).isEqualTo(file);

        assertThat(file).contains("GRANT CONNECT, TEMPORARY ON DATABASE %I TO " + PLAN_ROLE)
                .contains("ALTER ROLE " + PLAN_ROLE + " SET temp_file_limit");
        Set<String> named = new TreeSet<>();
        Matcher role = Pattern.compile("\\bcountersign_[a-z]+\\b").matcher(file);
        while (role.find()) {
            named.add(role.group());
        }
        assertThat(managedRoles()).as("every role %s names is one the Cluster manages", PLAN_ROLE_SQL)
                .extracting(r -> Node.str(r, "name")).containsAll(named);
        assertThat(named).contains(PLAN_ROLE, "countersign_owner", "countersign_executor", "countersign_agent");
    }

    /**
     * The migration Job passes the role names the migrations grant to (Flyway placeholders): each is a managed role,
     * and each variable is the one executor-service's application.properties reads for its placeholder.
     */
    @Test
    void theMigrationJobGrantsToTheManagedRoles() throws IOException {
        Map<String, String> env = new java.util.HashMap<>();
        for (Map<String, Object> e : Node.maps(Node.containers(manifests.podSpec("Job", "countersign-migrate")).get(0),
                "env")) {
            env.put(Node.str(e, "name"), Node.str(e, "value"));
        }
        assertThat(env).containsEntry("EXECUTOR_DB_USER", "countersign_executor")
                .containsEntry("AGENT_DB_ROLE", "countersign_agent").containsEntry("AGENT_PLAN_DB_ROLE", PLAN_ROLE);
        String properties = Files.readString(
                Manifests.repoRoot().resolve("executor-service/src/main/resources/application.properties"));
        assertThat(properties).contains("quarkus.flyway.placeholders.readerRole=${AGENT_DB_ROLE:")
                .contains("quarkus.flyway.placeholders.planRole=${AGENT_PLAN_DB_ROLE:");
        assertThat(managedRoles()).extracting(r -> Node.str(r, "name")).contains(env.get("EXECUTOR_DB_USER"),
                env.get("AGENT_DB_ROLE"), env.get("AGENT_PLAN_DB_ROLE"));
    }

    @Test
    void bothServicesConnectToThePrimaryOfThisCluster() {
        assertThat(Node.str(manifests.get("ConfigMap", "agent-service-config"), "data", "AGENT_DB_REACTIVE_URL"))
                .isEqualTo("postgresql://countersign-db-rw:5432/countersign");
        assertThat(Node.str(manifests.get("ConfigMap", "executor-service-config"), "data", "EXECUTOR_DB_REACTIVE_URL"))
                .isEqualTo("postgresql://countersign-db-rw:5432/countersign");
    }

    private Map<String, Object> cluster() {
        return manifests.get("Cluster", "countersign-db");
    }

    private List<Map<String, Object>> managedRoles() {
        return Node.maps(cluster(), "spec", "managed", "roles");
    }

    private Map<String, Object> role(String name) {
        return managedRoles().stream().filter(r -> name.equals(Node.str(r, "name"))).findFirst()
                .orElseThrow(() -> new AssertionError("no managed role " + name));
    }
}
