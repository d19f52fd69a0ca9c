package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.countersign.devsupport.LocalKafka;
import dev.countersign.devsupport.LocalPostgres;

/**
 * The run command against a PostgreSQL server and a Kafka broker that are already running ({@code PGHOST},
 * {@code KAFKA_BOOTSTRAP_SERVERS}): it creates the database and roles on the server, starts neither itself, and the
 * flow works.
 */
class ExternalInfrastructureIT {

    @Test
    void theStackUsesAnExistingPostgresAndKafka() throws Exception {
        int postgresPort = TestStacks.freePort();
        try (LocalPostgres postgres = LocalPostgres.start(postgresPort, null);
                LocalKafka kafka = LocalKafka.start(0, null)) {
            StackSettings settings = TestStacks.withExecutors(1, Map.of("PGHOST", "localhost", "POSTGRES_PORT",
                    String.valueOf(postgresPort), "PGUSER", "postgres", "PGPASSWORD", "postgres",
                    "KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers()));
            Path data = settings.dataDirectory();

            try (LocalStack stack = LocalStack.start(settings)) {
                assertThat(data.resolve("postgres")).doesNotExist();
                assertThat(data.resolve("kafka")).doesNotExist();
                var tokens = Http.post(stack.tokenUrl(), null, Map.of("tenant", "acme", "user", "alice")).body();
                var reply = Http.post(stack.agentUrl() + "/api/conversations/ext/messages",
                        tokens.get("agentToken").asText(), Map.of("text", "add a 4.00 lunch expense to Checking"));
                assertThat(reply.status()).as(reply.text()).isEqualTo(200);
                String actionId = reply.body().get("proposals").get(0).get("actionId").asText();

                await().atMost(Duration.ofSeconds(30)).until(() -> Http.get(stack.executorUrl() + "/api/actions/"
                        + actionId, tokens.get("executorToken").asText()).status() == 200);
            }
        }
    }
}
