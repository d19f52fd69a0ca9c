package dev.countersign.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.countersign.agent.planmode.StatementAnalysis;
import dev.countersign.contracts.Topics;
import dev.countersign.devsupport.testing.ReaderGrantIssuer;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgException;

/**
 * Proof that agent-service cannot write: these tests fail if someone adds write code to its process. They read what
 * ships (the compiled classes of agent-service and of the shared modules in its process), the database's answer to the
 * agent's own credentials, and the topics its configuration produces to.
 */
@QuarkusTest
@AgentTestResources
class BoundaryTest {

    /** SQL that writes or changes the schema or privileges, as it would appear in a query string. */
    static final Pattern WRITING_SQL = Pattern.compile("(?i)\\b(INSERT\\s+INTO|UPDATE\\s+[\\w.\"]+\\s+(\\w+\\s+)?SET"
            + "|DELETE\\s+FROM|MERGE\\s+INTO|TRUNCATE\\s+(TABLE\\s+)?[\\w.\"]+|ALTER\\s+(TABLE|ROLE|SCHEMA|SYSTEM"
            + "|DEFAULT|INDEX|SEQUENCE|FUNCTION|VIEW|DATABASE|POLICY)|CREATE\\s+(TABLE|INDEX|ROLE|USER|SCHEMA"
            + "|FUNCTION|VIEW|TRIGGER|SEQUENCE|EXTENSION|DATABASE|POLICY|TEMP|TEMPORARY|UNLOGGED|OR\\s+REPLACE)"
            + "|GRANT\\s+(ALL|SELECT|INSERT|UPDATE|DELETE|USAGE|EXECUTE|CONNECT|CREATE|TRUNCATE)\\b)");
    /** Types through which a process could call another service over HTTP, or produce to Kafka directly. */
    static final List<String> FORBIDDEN_TYPES = List.of("dev/countersign/executor/", "java/net/http/HttpClient",
            "java/net/HttpURLConnection", "java/net/URL;", "io/vertx/core/http/HttpClient", "io/vertx/ext/web/client",
            "io/vertx/mutiny/ext/web/client", "io/vertx/mutiny/core/http/HttpClient", "jakarta/ws/rs/client/",
            "org/eclipse/microprofile/rest/client/", "org/apache/kafka/clients/producer/",
            // A Kafka record's metadata can redirect an emitter to any topic.
            "withTopic");

    @Inject
    Pool pool;

    /** Every class file in a directory or jar, with its bytes as Latin-1 text (where constant strings are legible). */
    static List<ClassText> classesIn(Path location) throws IOException {
        List<ClassText> classes = new ArrayList<>();
        if (Files.isDirectory(location)) {
            try (Stream<Path> files = Files.walk(location)) {
                for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                    classes.add(new ClassText(location.relativize(file).toString(),
                            new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1)));
                }
            }
        } else {
            try (JarFile jar = new JarFile(location.toFile())) {
                for (var entry : jar.stream().filter(e -> e.getName().endsWith(".class")).toList()) {
                    try (InputStream in = jar.getInputStream(entry)) {
                        classes.add(new ClassText(entry.getName(),
                                new String(in.readAllBytes(), StandardCharsets.ISO_8859_1)));
                    }
                }
            }
        }
        return classes;
    }

    /** The shared module's classes on the test's class path (its jar, or its classes directory in the reactor). */
    static Path sharedModule(String artifactId) {
        return Stream.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(entry -> entry.contains(artifactId) && !entry.contains("tests"))
                .map(Path::of).findFirst()
                .orElseThrow(() -> new AssertionError(artifactId + " is not on the class path"));
    }

    /** The shipped classes of this process: agent-service's own, shared-contracts', shared-web's. */
    static List<ClassText> shippedClasses() throws IOException {
        List<ClassText> classes = new ArrayList<>(classesIn(Path.of("target", "classes")));
        classes.addAll(classesIn(sharedModule("shared-contracts")));
        classes.addAll(classesIn(sharedModule("shared-web")));
        return classes;
    }

    static Set<String> violations(List<ClassText> classes) {
        Set<String> found = new TreeSet<>();
        for (ClassText type : classes) {
            // The one exception, by its exact texts: plan mode's analysis makes the drafted statement a temporary view
            // (or a rule on a temporary table) of the plan role's own session, in a transaction it always rolls back
            // (PlanRoleFenceTest shows the role can write no table).
            String text = type.name().equals("dev/countersign/agent/planmode/StatementAnalysis.class")
                    ? type.text().replace(StatementAnalysis.CREATE_VIEW, "")
                            .replace(StatementAnalysis.CREATE_TARGET, "")
                    : type.text();
            var sql = WRITING_SQL.matcher(text);
            while (sql.find()) {
                found.add(type.name() + ": SQL " + sql.group());
            }
            for (String forbidden : FORBIDDEN_TYPES) {
                // The one HTTP call the agent makes, by its exact class and path: asking the executor for a reader
                // grant (which writes no domain data: a hash of a read credential), ReaderGrantClient.
                boolean grantCall = type.name().equals("dev/countersign/agent/evidence/ReaderGrantClient.class")
                        && forbidden.equals("java/net/http/HttpClient") && type.text().contains("/api/reader-grants")
                        && !type.text().contains("/api/actions");
                // Reading the kinds' declarations: ClassLoader.getResources answers the URLs of the classpath's kinds
                // lists (jar entries, directories), and KindDeclarations opens those and no other.
                boolean kindLists = type.name().equals("dev/countersign/contracts/catalogue/KindDeclarations.class")
                        && forbidden.equals("java/net/URL;") && type.text().contains("getResources");
                if (type.text().contains(forbidden) && !grantCall && !kindLists) {
                    found.add(type.name() + ": refers to " + forbidden);
                }
            }
        }
        return found;
    }

    @Test
    void noShippedClassWritesSqlCallsAnotherServiceOrProducesToKafkaDirectly() throws Exception {
        List<ClassText> shipped = shippedClasses();

        assertThat(shipped).extracting(ClassText::name).contains("dev/countersign/agent/act/ActTurn.class")
                .anyMatch(name -> name.endsWith("catalogue/ActionCatalogue.class"))
                .anyMatch(name -> name.endsWith("web/ProblemMappers.class"));
        assertThat(violations(shipped)).isEmpty();
        assertThatThrownBy(() -> Class.forName("dev.countersign.executor.decision.DecisionService"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void theScanFindsWriteCodeWhereThereIsSome() throws Exception {
        List<ClassText> planted = classesIn(Path.of("target", "test-classes")).stream()
                .filter(c -> c.name().endsWith("PlantedWriter.class")).toList();

        assertThat(planted).hasSize(1);
        assertThat(violations(planted)).anyMatch(v -> v.contains("SQL INSERT INTO"))
                .anyMatch(v -> v.contains("SQL UPDATE wallets SET")).anyMatch(v -> v.contains("SQL DELETE FROM"))
                .anyMatch(v -> v.contains("SQL GRANT ALL")).anyMatch(v -> v.contains("java/net/http/HttpClient"))
                .anyMatch(v -> v.contains("withTopic"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "INSERT INTO wallets (id, tenant_id, owner_id, name, currency) VALUES (gen_random_uuid(), 't', 'u', 'x', 'EUR')",
            "UPDATE transactions SET amount = 1",
            "DELETE FROM actions"})
    void theAgentsOwnDatabaseCredentialsCannotWrite(String statement) throws Exception {
        // Under a live grant, so that what refuses is the role's missing privilege, not the missing tenant.
        String grant = ReaderGrantIssuer.grant("t-boundary", "alice");
        assertThatThrownBy(() -> pool.withTransaction(sql -> sql
                .query("SELECT set_config('countersign.reader_grant', '" + grant + "', true)").execute()
                .flatMap(named -> sql.query(statement).execute())).await().atMost(Duration.ofSeconds(10)))
                .isInstanceOfSatisfying(PgException.class,
                        e -> assertThat(e.getSqlState()).as(e.getMessage()).isEqualTo("42501"));
    }

    @Test
    void theAgentProducesOnlyToTheProposalsAndConversationTopics() {
        var config = ConfigProvider.getConfig();
        Set<String> produced = new TreeSet<>();
        for (String name : config.getPropertyNames()) {
            if (name.startsWith("mp.messaging.outgoing.") && name.endsWith(".connector")) {
                String channel = name.substring("mp.messaging.outgoing.".length(),
                        name.length() - ".connector".length());
                produced.add(config.getOptionalValue("mp.messaging.outgoing." + channel + ".topic", String.class)
                        .orElse(channel));
            }
        }

        assertThat(produced).containsExactlyInAnyOrder(Topics.ACTIONS_PROPOSED, Topics.CONVERSATION_EVENTS);
    }

    record ClassText(String name, String text) {
    }
}
