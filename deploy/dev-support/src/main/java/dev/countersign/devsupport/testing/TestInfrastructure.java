package dev.countersign.devsupport.testing;

import java.util.HashMap;
import java.util.Map;

import org.flywaydb.core.Flyway;

import dev.countersign.devsupport.DevTokens;
import dev.countersign.devsupport.FreePorts;
import dev.countersign.devsupport.LocalKafka;
import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.external.LocalSmtp;
import dev.countersign.devsupport.external.TicketStub;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Starts, once per test JVM, a real PostgreSQL server and a real Kafka broker, and hands a service its connection
 * settings. Init arg {@code service}: {@code executor} (application role; migrations as the owner) or {@code agent}
 * (reader role; the executor's migrations are applied first from {@code migrations}, a Flyway location, since the agent
 * owns no schema).
 * <p>
 * Facts the tests need are published as system properties (see {@link TestProperties}), which every class loader of the
 * test JVM can read.
 */
public class TestInfrastructure implements QuarkusTestResourceLifecycleManager {

    private static LocalPostgres postgres;
    private static LocalKafka kafka;
    private static DevTokens tokens;
    private static LocalSmtp smtp;
    private static TicketStub tickets;
    private static ReaderGrantIssuer readerGrants;

    private String service = "executor";
    private String migrations;

    @Override
    public void init(Map<String, String> initArgs) {
        service = initArgs.getOrDefault("service", "executor");
        migrations = initArgs.get("migrations");
    }

    @Override
    public synchronized Map<String, String> start() {
        if (postgres == null) {
            postgres = LocalPostgres.start(0, null);
            kafka = LocalKafka.start(0, null);
            tokens = DevTokens.generate();
            System.setProperty(TestProperties.JDBC_URL, postgres.jdbcUrl());
            System.setProperty(TestProperties.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
            System.setProperty(TestProperties.PRIVATE_KEY_PEM, tokens.privateKeyPem());
            System.setProperty(TestProperties.PUBLIC_KEY_PEM, tokens.publicKeyPem());
            System.setProperty(TestProperties.MODEL_PORT, String.valueOf(FreePorts.one()));
        }
        if ("agent".equals(service) && readerGrants == null) {
            readerGrants = ReaderGrantIssuer.start(tokens.publicKey(), postgres.jdbcUrl());
        }
        if (!"agent".equals(service) && smtp == null) {
            smtp = LocalSmtp.start(0);
            tickets = TicketStub.start(0);
        }
        Map<String, String> config = new HashMap<>();
        boolean agent = "agent".equals(service);
        if (agent && migrations != null) {
            Flyway.configure()
                    .dataSource(postgres.jdbcUrl(), LocalPostgres.OWNER_ROLE, LocalPostgres.OWNER_PASSWORD)
                    .locations(migrations)
                    .placeholders(Map.of("readerRole", LocalPostgres.READER_ROLE, "executorRole",
                            LocalPostgres.EXECUTOR_ROLE, "planRole", LocalPostgres.PLAN_ROLE))
                    .load()
                    .migrate();
        }
        config.put("quarkus.datasource.username", agent ? LocalPostgres.READER_ROLE : LocalPostgres.EXECUTOR_ROLE);
        config.put("quarkus.datasource.password",
                agent ? LocalPostgres.READER_PASSWORD : LocalPostgres.EXECUTOR_PASSWORD);
        if (!agent) {
            config.put("quarkus.flyway.username", LocalPostgres.OWNER_ROLE);
            config.put("quarkus.flyway.password", LocalPostgres.OWNER_PASSWORD);
            config.put("quarkus.mailer.host", "127.0.0.1");
            config.put("quarkus.mailer.port", String.valueOf(smtp.port()));
            config.put("quarkus.mailer.start-tls", "DISABLED");
            config.put("countersign.external.mail.enabled", "true");
            config.put("countersign.external.ticket.url", tickets.url());
        }
        config.put("quarkus.datasource.reactive.url", postgres.reactiveUrl());
        if (agent) {
            config.put("quarkus.datasource.\"plan\".reactive.url", postgres.reactiveUrl());
            config.put("countersign.reader-grants.executor-url", readerGrants.url());
        }
        config.put("quarkus.datasource.jdbc.url", postgres.jdbcUrl());
        config.put("kafka.bootstrap.servers", kafka.bootstrapServers());
        config.put("quarkus.oidc.public-key", tokens.publicKeyBase64());
        config.put("quarkus.oidc.token.issuer", DevTokens.ISSUER);
        config.put("quarkus.langchain4j.openai.base-url",
                "http://localhost:%s/v1/".formatted(System.getProperty(TestProperties.MODEL_PORT)));
        return config;
    }

    /** The SMTP server executor tests send to (null in agent tests). */
    public static LocalSmtp smtp() {
        return smtp;
    }

    /** The ticket system executor tests call (null in agent tests). */
    public static TicketStub tickets() {
        return tickets;
    }

    @Override
    public void stop() {
        // The servers live for the whole test JVM and die with it; stopping them between applications would only
        // cost start-up time.
    }

}
