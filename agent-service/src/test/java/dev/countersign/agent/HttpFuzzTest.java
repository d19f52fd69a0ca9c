package dev.countersign.agent;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import dev.countersign.agent.chat.ConversationResource;
import dev.countersign.contracts.Audiences;
import dev.countersign.devsupport.model.ModelReply;
import dev.countersign.devsupport.testing.ReliabilityReport;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.devsupport.testing.fuzz.Credential;
import dev.countersign.devsupport.testing.fuzz.DomainChecksum;
import dev.countersign.devsupport.testing.fuzz.Endpoint;
import dev.countersign.devsupport.testing.fuzz.FuzzRun;
import dev.countersign.devsupport.testing.fuzz.HostileValues;
import dev.countersign.devsupport.testing.fuzz.HttpFuzzer;
import dev.countersign.devsupport.testing.fuzz.HttpInputs;
import dev.countersign.devsupport.testing.fuzz.OpenApiEndpoints;
import dev.countersign.devsupport.testing.fuzz.ResourceMethods;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.test.common.http.TestHTTPResourceManager;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 19, bad input over HTTP: every endpoint of the agent's OpenAPI document, the chat (JSON and event stream)
 * included, gets {@code countersign.fuzz.inputs} (default 1000) generated requests from a recorded seed
 * ({@link FuzzRun}); each must be answered with a 4xx problem+json naming a code (a 2xx only from a read or from
 * opening a conversation), and the domain tables must be unchanged afterwards (the agent writes none; this proves it
 * for bad input). Every chat body has a defect, so no input reaches the model.
 */
@QuarkusTest
@AgentTestResources
class HttpFuzzTest {

    /** The agent's body limit (AGENT_MAX_BODY_SIZE): the fuzzer's larger bodies are refused with 413. */
    @ConfigProperty(name = "quarkus.http.limits.max-body-size")
    MemorySize maxBody;

    /** Opening a conversation only mints an id; nothing is stored until its first turn. */
    private static final Set<String> HARMLESS_WRITES = Set.of("POST /api/conversations");

    @Test
    void everyEndpointRefusesGeneratedBadInputWithAProblemAndWritesNothing() throws Exception {
        FuzzRun run = FuzzRun.fromSystemProperties("agent HttpFuzzTest");
        List<Endpoint> endpoints = endpoints();
        Set<String> documented = new TreeSet<>(endpoints.stream().map(Endpoint::key).toList());
        assertThat(documented).as("the OpenAPI document lists every @Path method of the resource classes")
                .containsAll(ResourceMethods.declaredNextTo(ConversationResource.class));

        AgentFixtures fixtures = new AgentFixtures();
        ScriptedModel.use(turn -> ModelReply.text("A fuzz input reached the model."));
        List<Credential> credentials = Credential.variants(fixtures.tenant, "alice", Audiences.AGENT,
                Audiences.EXECUTOR);
        Map<String, List<String>> knownIds = Map.of("*", List.of(fixtures.checking.toString(), "c-fuzz"));

        DomainChecksum checksum;
        Map<String, String> before;
        try (var owner = TestProperties.ownerConnection()) {
            // reader_grants: a request whose sign-in is valid gets a read grant (a hashed credential, no domain data).
            checksum = DomainChecksum.startingNow(owner, Set.of("reader_grants"), Set.of(fixtures.tenant));
            before = checksum.take(owner);
        }
        List<HttpFuzzer.Result> results = new ArrayList<>();
        long started = System.nanoTime();
        try (var fuzzer = new HttpFuzzer(URI.create(TestHTTPResourceManager.getUri()), HARMLESS_WRITES,
                Set.of("GET /api/ui/config"), maxBody.asLongValue())) {
            for (Endpoint endpoint : endpoints) {
                var inputs = new HttpInputs(new HostileValues(run.randomFor(endpoint.key())), endpoint, credentials,
                        knownIds).generate(run.inputs());
                results.add(fuzzer.fuzz(endpoint, inputs));
            }
        }
        long seconds = (System.nanoTime() - started) / 1_000_000_000;
        int total = results.stream().mapToInt(HttpFuzzer.Result::tried).sum();
        results.forEach(result -> System.out.printf("agent HttpFuzzTest: %s: %d inputs, statuses %s%n",
                result.endpoint(), result.tried(), result.statuses()));
        System.out.printf("agent HttpFuzzTest: %d inputs to %d endpoints in %d s, %s%n", total, endpoints.size(),
                seconds, run.replay());

        List<String> failures = results.stream().flatMap(result -> result.failures().stream()
                .map(failure -> result.endpoint() + ": " + failure)).toList();
        assertThat(failures).as("answers that were not a 4xx problem+json, %s; first: %s", run.replay(),
                failures.stream().limit(5).toList()).isEmpty();
        assertThat(ScriptedModel.requests()).as("model requests made for generated inputs, %s", run.replay())
                .isEmpty();
        try (var owner = TestProperties.ownerConnection()) {
            assertThat(checksum.take(owner)).as("domain tables after %d rejected inputs, %s", total, run.replay())
                    .isEqualTo(before);
        }
        ReliabilityReport.record(new ReliabilityReport.Row("HttpFuzzTest (agent)",
                "%d endpoints x %d inputs, seed %d".formatted(endpoints.size(), run.inputs(), run.seed()),
                "malformed and hostile requests, bad tokens", total, 0, 0, failures.size()));
    }

    private static List<Endpoint> endpoints() {
        String document = given().get(Management.url("/openapi?format=json")).then().statusCode(200).extract()
                .asString();
        return OpenApiEndpoints.read(document).stream().filter(endpoint -> endpoint.path().startsWith("/api/"))
                .toList();
    }
}
