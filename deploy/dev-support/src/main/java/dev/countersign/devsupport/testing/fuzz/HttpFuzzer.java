package dev.countersign.devsupport.testing.fuzz;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.json.Json;

/**
 * Sends generated requests to a running service, a few at a time over one reused {@link HttpClient}, and judges each
 * answer: a 4xx with an {@code application/problem+json} body that names a {@code code} (or an empty 413, 414 or 431 of
 * the HTTP server); never a 5xx, never a missing answer; a 2xx only from a read (GET) or from an endpoint the caller
 * names as harmless.
 */
public final class HttpFuzzer implements AutoCloseable {

    /** Requests in flight at once: enough to keep both cores busy, few enough to leave the machine usable. */
    private static final int CONCURRENCY = 4;
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(20);
    /**
     * Refusals of the HTTP server itself (Vert.x), before any application code runs and so without a problem body: a
     * body over the size limit (413), a request line over 4 KB (414), headers over 20 KB (431). Accepted as they are.
     */
    private static final Set<Integer> REFUSED_BY_HTTP_SERVER = Set.of(413, 414, 431);
    /** The HTTP server's longest request line (quarkus.http.limits.max-initial-line-length, 4096 by default). */
    private static final int SERVER_REQUEST_LINE_LIMIT = 4096;

    private final ExecutorService senders = Executors.newFixedThreadPool(CONCURRENCY);
    private final HttpClient client = clientBuilder().executor(Executors.newFixedThreadPool(2)).build();
    private final URI base;
    private final Set<String> harmlessWrites;
    private final Set<String> openToAnyone;
    /** The server's body limit (quarkus.http.limits.max-body-size); a body over it is refused with 413. */
    private final long maxBodyBytes;

    /**
     * @param harmlessWrites
     *            keys ({@link Endpoint#key()}) of non-GET endpoints that may answer 2xx to any signed-in request
     *            because they change nothing (say why where they are named)
     * @param openToAnyone
     *            keys of endpoints that answer without a sign-in (anything else answering 2xx to a missing, expired,
     *            forged or wrong-audience credential is a failure)
     */
    public HttpFuzzer(URI base, Set<String> harmlessWrites, Set<String> openToAnyone) {
        this(base, harmlessWrites, openToAnyone, Long.MAX_VALUE);
    }

    /**
     * @param maxBodyBytes
     *            the server's body limit, for a service that sets one lower than the fuzzer's largest bodies (see
     *            {@link #askWithoutTheBody})
     */
    public HttpFuzzer(URI base, Set<String> harmlessWrites, Set<String> openToAnyone, long maxBodyBytes) {
        this.base = base;
        this.harmlessWrites = harmlessWrites;
        this.openToAnyone = openToAnyone;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** How one endpoint answered its inputs. */
    public record Result(Endpoint endpoint, int tried, Map<Integer, Integer> statuses, List<String> failures) {
    }

    public Result fuzz(Endpoint endpoint, List<HttpInput> inputs) throws InterruptedException {
        List<Future<String>> verdicts = new ArrayList<>();
        for (HttpInput input : inputs) {
            verdicts.add(senders.submit(() -> judge(input)));
        }
        Map<Integer, Integer> statuses = new TreeMap<>();
        List<String> failures = new ArrayList<>();
        for (Future<String> verdict : verdicts) {
            String outcome;
            try {
                outcome = verdict.get();
            } catch (ExecutionException e) {
                outcome = "FAIL the fuzzer itself failed: " + e.getCause();
            }
            int space = outcome.indexOf(' ');
            String head = outcome.substring(0, space);
            if ("FAIL".equals(head)) {
                failures.add(outcome.substring(space + 1));
            } else {
                statuses.merge(Integer.parseInt(head), 1, Integer::sum);
            }
        }
        return new Result(endpoint, inputs.size(), statuses, failures);
    }

    /** "STATUS ok" or "FAIL why" for one input. */
    private String judge(HttpInput input) {
        HttpResponse<String> response;
        try {
            response = send(input);
        } catch (Exception e) {
            return "FAIL no answer (" + e + ") to " + input.describe();
        }
        int status = response.statusCode();
        String problem = problemWith(input.endpoint(), input.credential(), status, response);
        return problem == null ? status + " ok" : "FAIL " + problem + " to " + input.describe();
    }

    /**
     * Sends once more, on a connection of its own, when the server had closed the pooled connection the request went
     * out on (it closes a connection after refusing an oversized request or a body it did not read, and a request
     * already queued on it sees no bytes): a client artefact, not an answer. The second attempt goes through a client
     * of its own, whose first request always opens a new connection, so a second failure is the server's: an input the
     * server drops fails the run, with one exception ({@link #askWithoutTheBody}). A timeout is not retried.
     */
    private HttpResponse<String> send(HttpInput input) throws Exception {
        try {
            return answer(client, request(input, true));
        } catch (HttpTimeoutException e) {
            throw e;
        } catch (IOException onPooledConnection) {
            try {
                return answer(freshClient(), request(input, true));
            } catch (HttpTimeoutException e) {
                throw e;
            } catch (IOException onNewConnection) {
                return askWithoutTheBody(input, onNewConnection);
            }
        }
    }

    /**
     * A client of its own, whose first request always opens a new connection. Rare, so one per retry; its selector
     * thread ends once it is no longer referenced.
     */
    private static HttpClient freshClient() {
        return clientBuilder().build();
    }

    private static HttpResponse<String> answer(HttpClient sender, HttpRequest request) throws Exception {
        return sender.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A request line over {@link #SERVER_REQUEST_LINE_LIMIT} is refused by the HTTP server with 414 as soon as the line
     * is read, and the connection closed at once (Vert.x does no lingering close). When the client is still uploading
     * the body (likely when it is large), that close resets the connection and the 414 is lost: the client sees no
     * bytes, on a fresh connection too. The server's answer depends on the request line alone, so the same request is
     * sent once more without its body, and only a 414 counts as the answer; anything else, or a request line within the
     * limit, is the original failure. What this cannot tell: whether the server would have done something other than
     * refuse the line had the body arrived (it never reads it).
     * <p>
     * A body over the server's limit ({@code maxBodyBytes}) is refused the same way, with 413 from its
     * {@code Content-Length} and the connection closed while the client uploads. The same request is sent once more
     * with {@code Expect: 100-continue}, so the server answers before any of the body goes out; only a 413 counts.
     */
    private HttpResponse<String> askWithoutTheBody(HttpInput input, IOException failure) throws Exception {
        if (input.body() != null && input.body().length > maxBodyBytes) {
            HttpResponse<String> answer = answer(freshClient(), request(input, true, true));
            if (answer.statusCode() != 413) {
                failure.addSuppressed(new IllegalStateException(
                        "asked to continue, the request was answered " + answer.statusCode() + ", not 413"));
                throw failure;
            }
            return answer;
        }
        if (input.body() == null || requestLineLength(input) <= SERVER_REQUEST_LINE_LIMIT) {
            throw failure;
        }
        HttpResponse<String> answer = answer(freshClient(), request(input, false));
        if (answer.statusCode() != 414) {
            failure.addSuppressed(new IllegalStateException(
                    "without its body the request was answered " + answer.statusCode() + ", not 414"));
            throw failure;
        }
        return answer;
    }

    /** {@code METHOD SP path-and-query SP HTTP/1.1}, in bytes (the path and query are percent-encoded ASCII). */
    private static int requestLineLength(HttpInput input) {
        return input.endpoint().method().length() + 1 + input.pathAndQuery().length() + 1 + "HTTP/1.1".length();
    }

    private static HttpClient.Builder clientBuilder() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5));
    }

    private HttpRequest request(HttpInput input, boolean withBody) {
        return request(input, withBody, false);
    }

    private HttpRequest request(HttpInput input, boolean withBody, boolean expectContinue) {
        var body = input.body() == null || !withBody
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(input.body());
        var request = HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/+$", "") + input.pathAndQuery()))
                .timeout(ANSWER_TIMEOUT).expectContinue(expectContinue).method(input.endpoint().method(), body);
        if (input.credential().authorization() != null) {
            request.header("Authorization", input.credential().authorization());
        }
        if (input.contentType() != null) {
            request.header("Content-Type", input.contentType());
        }
        if (input.accept() != null) {
            request.header("Accept", input.accept());
        }
        return request.build();
    }

    /** Null if the answer is acceptable for the input; otherwise what is wrong with it. */
    private String problemWith(Endpoint endpoint, Credential credential, int status, HttpResponse<String> response) {
        if (status >= 200 && status < 300 && !credential.signedIn() && !credential.isAnotherTenant()
                && !openToAnyone.contains(endpoint.key())) {
            return "a " + status + " to a request without a valid sign-in (credential '" + credential.label() + "')";
        }
        if (status >= 200 && status < 300) {
            return endpoint.isRead() || harmlessWrites.contains(endpoint.key())
                    ? null
                    : "a " + status + " from a write endpoint (a generated write input is never valid)";
        }
        if (status < 400 || status >= 500) {
            return "HTTP " + status + " (" + snippet(response.body()) + ")";
        }
        String contentType = response.headers().firstValue("Content-Type").orElse("");
        if (REFUSED_BY_HTTP_SERVER.contains(status) && response.body().isEmpty()) {
            return null;
        }
        if (!contentType.startsWith("application/problem+json")) {
            return "a " + status + " that is not problem+json (Content-Type '" + contentType + "', body '"
                    + snippet(response.body()) + "')";
        }
        try {
            JsonNode problem = Json.mapper().readTree(response.body());
            if (!problem.path("code").isTextual() || problem.path("status").asInt() != status) {
                return "a " + status + " problem without a code or with another status: " + snippet(response.body());
            }
        } catch (Exception e) {
            return "a " + status + " problem+json that is not JSON: " + snippet(response.body());
        }
        return null;
    }

    private static String snippet(String body) {
        return body == null ? "" : body.length() > 300 ? body.substring(0, 300) + "..." : body;
    }

    @Override
    public void close() {
        senders.shutdownNow();
    }
}
