package dev.countersign.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import dev.countersign.devsupport.testing.fuzz.Credential;
import dev.countersign.devsupport.testing.fuzz.Endpoint;
import dev.countersign.devsupport.testing.fuzz.HttpFuzzer;
import dev.countersign.devsupport.testing.fuzz.HttpInput;
import io.quarkus.test.common.http.TestHTTPResourceManager;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The fuzzer's judgement of the one input that made {@link HttpFuzzTest} fail at random in CI (seed
 * -6028090017967954206): a request line over the HTTP server's 4 KB limit with a megabyte of body. The server answers
 * 414 from the line and closes the connection while the client is still uploading, which loses the answer; the fuzzer
 * must still see the 414 (by asking without the body), not report "no answer".
 */
@QuarkusTest
@AgentTestResources
class HttpFuzzerLostAnswerTest {

    private static final int INPUTS = 600;

    @Test
    void aRequestLineOverTheLimitWithAHugeBodyIsJudgedByItsAnswer414() throws Exception {
        Endpoint messages = new Endpoint("POST", "/api/conversations/{id}/messages", List.of("id"), List.of(),
                "object", Map.of("text", "string"), List.of("application/json"));
        byte[] hugeBody = ("{\"text\":\"" + "h".repeat(1 << 20) + "\"}").getBytes(StandardCharsets.UTF_8);
        String overLongPath = "/api/conversations/" + "x".repeat(5000) + "/messages";
        List<HttpInput> inputs = IntStream.range(0, INPUTS)
                .mapToObj(index -> new HttpInput(index, messages, overLongPath, new Credential("none", null, false),
                        "application/json", "text/html", hugeBody, "huge"))
                .toList();

        HttpFuzzer.Result result;
        try (var fuzzer = new HttpFuzzer(URI.create(TestHTTPResourceManager.getUri()), Set.of(), Set.of())) {
            result = fuzzer.fuzz(messages, inputs);
        }

        assertThat(result.failures()).as("inputs judged as unanswered").isEmpty();
        assertThat(result.statuses()).isEqualTo(Map.of(414, INPUTS));
    }
}
