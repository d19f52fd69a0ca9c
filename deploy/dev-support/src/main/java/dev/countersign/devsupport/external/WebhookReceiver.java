package dev.countersign.devsupport.external;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A webhook receiver over real HTTP, for the tests and the local stack: it records every POST it is sent (path,
 * Standard Webhooks headers, body) and answers 204, or the status it was told to, or nothing until released. A
 * delivery's signature and timestamp are checked with the Standard Webhooks library ({@link Delivery#verify}), as a
 * team's own receiver would: not by Countersign's code.
 */
public final class WebhookReceiver implements AutoCloseable {

    /** One request as it arrived. */
    public record Delivery(String path, String query, String id, String timestamp, String signature, String body) {

        /**
         * Checks the signature under {@code secret} and that the timestamp is within the library's tolerance (five
         * minutes) of now; throws {@link WebhookVerificationException} otherwise.
         */
        public void verify(String secret) throws WebhookVerificationException {
            new Webhook(secret).verify(body, Map.of("webhook-id", List.of(id), "webhook-timestamp",
                    List.of(timestamp), "webhook-signature", List.of(signature)));
        }
    }

    private final HttpServer server;
    private final List<Delivery> deliveries = new CopyOnWriteArrayList<>();
    private volatile int status = 204;
    private volatile CountDownLatch held = new CountDownLatch(0);

    private WebhookReceiver(HttpServer server) {
        this.server = server;
    }

    /** Starts on any free port of the loopback interface. */
    public static WebhookReceiver start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            WebhookReceiver receiver = new WebhookReceiver(server);
            server.createContext("/", receiver::handle);
            server.setExecutor(Executors.newFixedThreadPool(4));
            server.start();
            return receiver;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** This receiver's origin, {@code http://127.0.0.1:port}. */
    public String origin() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public List<Delivery> deliveries() {
        return List.copyOf(deliveries);
    }

    /** The deliveries whose path is {@code path}. */
    public List<Delivery> deliveriesTo(String path) {
        return deliveries.stream().filter(delivery -> delivery.path().equals(path)).toList();
    }

    /** Answers every later request with {@code status} (204 at first). */
    public void answer(int status) {
        this.status = status;
    }

    /** Records every later request and answers none until {@link #release()} (or a minute passes). */
    public void hold() {
        held = new CountDownLatch(1);
    }

    /** Answers the held requests, and the later ones at once. */
    public void release() {
        held.countDown();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            var headers = exchange.getRequestHeaders();
            deliveries.add(new Delivery(exchange.getRequestURI().getPath(), exchange.getRequestURI().getRawQuery(),
                    headers.getFirst("webhook-id"), headers.getFirst("webhook-timestamp"),
                    headers.getFirst("webhook-signature"),
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            try {
                held.await(1, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(status, -1);
        }
    }

    @Override
    public void close() {
        release();
        server.stop(0);
    }
}
