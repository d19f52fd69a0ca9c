package dev.countersign.devsupport.testing;

import java.time.Duration;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.Groups;
import dev.countersign.devsupport.DevTokens;

/** Names of the system properties {@link TestInfrastructure} publishes, and helpers that read them. */
public final class TestProperties {

    public static final String OWNER_JDBC_URL = "countersign.test.owner-jdbc-url";
    public static final String READER_JDBC_URL = "countersign.test.reader-jdbc-url";
    public static final String BOOTSTRAP_SERVERS = "countersign.test.bootstrap-servers";
    public static final String PRIVATE_KEY_PEM = "countersign.test.private-key-pem";
    public static final String PUBLIC_KEY_PEM = "countersign.test.public-key-pem";
    public static final String MODEL_PORT = "countersign.test.model-port";

    private TestProperties() {
    }

    public static String require(String name) {
        String value = System.getProperty(name);
        if (value == null) {
            throw new IllegalStateException(name + " is not set: is TestInfrastructure on this test?");
        }
        return value;
    }

    /** A bearer token for agent-service, for a user of a tenant, signed with the test key the services trust. */
    public static String agentBearer(String tenantId, String userId) {
        return bearer(tenantId, userId, Audiences.AGENT);
    }

    /** A bearer token for executor-service. */
    public static String executorBearer(String tenantId, String userId) {
        return bearer(tenantId, userId, Audiences.EXECUTOR);
    }

    /** An executor token of a plain user, without the approver group. */
    public static String executorBearerWithoutApproval(String tenantId, String userId) {
        return DevTokens.fromPem(require(PRIVATE_KEY_PEM), require(PUBLIC_KEY_PEM))
                .mint(tenantId, userId, java.util.List.of(Audiences.EXECUTOR), java.util.List.of(Groups.USER),
                        Duration.ofMinutes(30));
    }

    public static String bearer(String tenantId, String userId, String... audiences) {
        return DevTokens.fromPem(require(PRIVATE_KEY_PEM), require(PUBLIC_KEY_PEM))
                .mint(tenantId, userId, java.util.List.of(audiences), Duration.ofMinutes(30));
    }
}
