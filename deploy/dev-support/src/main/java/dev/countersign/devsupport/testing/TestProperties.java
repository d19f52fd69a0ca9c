package dev.countersign.devsupport.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import dev.countersign.contracts.Audiences;
import dev.countersign.contracts.Groups;
import dev.countersign.devsupport.DevTokens;
import dev.countersign.devsupport.LocalPostgres;

/** Names of the system properties {@link TestInfrastructure} publishes, and helpers that read them. */
public final class TestProperties {

    /** The test database; every role connects to the same URL. */
    public static final String JDBC_URL = "countersign.test.jdbc-url";
    public static final String BOOTSTRAP_SERVERS = "countersign.test.bootstrap-servers";
    public static final String PRIVATE_KEY_PEM = "countersign.test.private-key-pem";
    public static final String PUBLIC_KEY_PEM = "countersign.test.public-key-pem";
    public static final String MODEL_PORT = "countersign.test.model-port";

    private static final Duration LIFETIME = Duration.ofMinutes(30);
    private static DevTokens tokens;

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
        return tokens().mint(tenantId, userId, List.of(Audiences.EXECUTOR), List.of(Groups.USER), LIFETIME);
    }

    /** A connection to the test database as the schema owner (not under row-level security), for fixtures. */
    public static Connection ownerConnection() throws SQLException {
        return connectionAs(LocalPostgres.OWNER_ROLE, LocalPostgres.OWNER_PASSWORD);
    }

    /** A connection to the test database as {@code role}. */
    public static Connection connectionAs(String role, String password) throws SQLException {
        return DriverManager.getConnection(require(JDBC_URL), role, password);
    }

    public static String bearer(String tenantId, String userId, String... audiences) {
        return tokens().mint(tenantId, userId, List.of(audiences), LIFETIME);
    }

    /**
     * A bearer token issued at {@code issuedAt} that has not expired (it is valid until 30 minutes from now): only the
     * services' maximum token age can refuse it.
     */
    public static String bearerIssuedAt(String tenantId, String userId, java.time.Instant issuedAt, String audience) {
        Duration lifetime = Duration.between(issuedAt, java.time.Instant.now()).plus(LIFETIME);
        return tokens().mintIssuedAt(tenantId, userId, List.of(audience),
                List.of(Groups.USER, Groups.APPROVER, Groups.ADMIN), issuedAt, lifetime);
    }

    /** The signing keys TestInfrastructure published, read once per class loader: for tokens of any shape. */
    public static synchronized DevTokens tokens() {
        if (tokens == null) {
            tokens = DevTokens.fromPem(require(PRIVATE_KEY_PEM), require(PUBLIC_KEY_PEM));
        }
        return tokens;
    }
}
