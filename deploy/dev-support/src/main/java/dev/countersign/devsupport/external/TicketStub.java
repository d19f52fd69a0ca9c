package dev.countersign.devsupport.external;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import dev.countersign.contracts.json.Json;

/**
 * A ticket system over real HTTP, for the local stack and the tests: {@code POST /tickets} with a JSON body
 * {@code {"title", "description"}} and an {@code Idempotency-Key} header answers 201 {@code {"id": ...}}; a repeated
 * key answers 200 with the same ticket and creates nothing, as vendors that honour idempotency keys do. It records
 * every request it was sent, so tests can see the keys.
 */
public final class TicketStub implements AutoCloseable {

    /** One request as it arrived. */
    /** One request as received; {@code traceparent} is its W3C trace context header, or null. */
    public record Request(String idempotencyKey, JsonNode body, String traceparent) {
    }

    private final HttpServer server;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Map<String, String> ticketsByKey = new ConcurrentHashMap<>();
    private volatile int failNext;
    private volatile Duration delay = Duration.ZERO;

    private TicketStub(HttpServer server) {
        this.server = server;
    }

    /** Starts on {@code port} (0: any free port) on the loopback interface. */
    public static TicketStub start(int port) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
            TicketStub stub = new TicketStub(server);
            server.createContext("/tickets", stub::handle);
            server.setExecutor(Executors.newFixedThreadPool(4));
            server.start();
            return stub;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String url() {
        return "http://127.0.0.1:%d/tickets".formatted(server.getAddress().getPort());
    }

    public List<Request> requests() {
        return List.copyOf(requests);
    }

    /** Tickets created (a repeated key creates none). */
    public int ticketCount() {
        return ticketsByKey.size();
    }

    /** The next {@code count} requests are recorded, then answered 503 without creating a ticket. */
    public void failNext(int count) {
        failNext = count;
    }

    /** Answers (after creating the ticket) only after {@code delay}: a vendor slower than the caller's timeout. */
    public void answerAfter(Duration delay) {
        this.delay = delay;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())) {
                answer(exchange, 405, "{\"error\":\"POST only\"}");
                return;
            }
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            JsonNode body = Json.read(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8),
                    JsonNode.class);
            requests.add(new Request(key, body, exchange.getRequestHeaders().getFirst("traceparent")));
            if (key == null || !body.hasNonNull("title")) {
                answer(exchange, 400, "{\"error\":\"Idempotency-Key and title are required\"}");
                return;
            }
            if (failNext > 0) {
                failNext--;
                answer(exchange, 503, "{\"error\":\"try again\"}");
                return;
            }
            boolean created = ticketsByKey.putIfAbsent(key, "T-" + UUID.randomUUID()) == null;
            sleep(delay);
            answer(exchange, created ? 201 : 200, "{\"id\":\"%s\"}".formatted(ticketsByKey.get(key)));
        }
    }

    private static void sleep(Duration delay) {
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void answer(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
