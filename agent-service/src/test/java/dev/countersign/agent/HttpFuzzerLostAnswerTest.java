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
 * The fuzzer's judgement of the kind of input that made {@link HttpFuzzTest} fail at random in CI (seed
 * -6028090017967954206, input #464): a request line over the HTTP server's 4 KB limit with a megabyte of body. The
 * server answers 414 from the line and closes the connection while the client is still uploading, which now and then
 * loses the answer even on the fuzzer's fresh-connection retry (measured: 1 to 6 in 200 such inputs, none for a line
 * within the limit); the fuzzer must still judge the 414 (it asks once more without the body), not report "no answer".
 * Without that third attempt this test failed in each of the three runs tried (one lost answer in 600 inputs, then in
 * 2,000 twice); the loss is a race, so without the fix a run can also pass.
 */
@QuarkusTest
@AgentTestResources
class HttpFuzzerLostAnswerTest {

    private static final int INPUTS = 2000;

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

    /**
     * The same race for a body over the agent's limit (AGENT_MAX_BODY_SIZE, 256 KiB) on a request line within it: 413
     * from the length, the connection closed while the client uploads (HttpFuzzTest, seed 4162988447549913566, input
     * #410, a 400 KB body, seen once in CI). The fuzzer asks once more with {@code Expect: 100-continue}.
     */
    @Test
    void aBodyOverTheLimitIsJudgedByItsAnswer413() throws Exception {
        Endpoint messages = new Endpoint("POST", "/api/conversations/{id}/messages", List.of("id"), List.of(),
                "object", Map.of("text", "string"), List.of("application/json"));
        byte[] hugeBody = ("{\"text\":\"" + "h".repeat(1 << 20) + "\"}").getBytes(StandardCharsets.UTF_8);
        List<HttpInput> inputs = IntStream.range(0, 400)
                .mapToObj(index -> new HttpInput(index, messages, "/api/conversations/c-413/messages",
                        new Credential("none", null, false), "application/json", "text/html", hugeBody, "huge"))
                .toList();

        HttpFuzzer.Result result;
        try (var fuzzer = new HttpFuzzer(URI.create(TestHTTPResourceManager.getUri()), Set.of(), Set.of(),
                256 * 1024)) {
            result = fuzzer.fuzz(messages, inputs);
        }

        assertThat(result.failures()).as("inputs judged as unanswered").isEmpty();
        assertThat(result.statuses()).isEqualTo(Map.of(413, 400));
    }
}
