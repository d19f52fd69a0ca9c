package dev.countersign.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.FieldSource;

/** CloudNativePG: three login roles with their own secrets, none privileged; nobody else may connect. */
@ParameterizedClass(name = "overlay {0}")
@FieldSource("dev.countersign.k8s.Manifests#OVERLAYS")
class PostgresRolesTest {

    private final Manifests manifests;

    PostgresRolesTest(String overlay) {
        this.manifests = Manifests.of(overlay);
    }

    @Test
    void ownerExecutorAndReaderAreManagedRolesWithTheirOwnSecrets() {
        List<Map<String, Object>> roles = Node.maps(cluster(), "spec", "managed", "roles");
        assertThat(roles).extracting(r -> Node.str(r, "name"))
                .containsExactlyInAnyOrder("countersign_owner", "countersign_executor", "countersign_agent");
        assertThat(roles).extracting(r -> Node.str(r, "passwordSecret", "name")).doesNotHaveDuplicates()
                .containsExactlyInAnyOrder("countersign-db-owner", "countersign-db-executor", "countersign-db-agent");
        for (Map<String, Object> role : roles) {
            for (String privilege : List.of("superuser", "bypassrls", "createrole", "createdb", "replication")) {
                assertThat(Node.str(role, privilege)).as("%s %s", Node.str(role, "name"), privilege).isEqualTo("false");
            }
            assertThat(Node.str(role, "login")).isEqualTo("true");
            assertThat(Node.str(role, "ensure")).isEqualTo("present");
        }
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
}
