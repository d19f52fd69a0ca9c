package dev.countersign.devsupport.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import dev.countersign.contracts.json.Json;
import dev.countersign.devsupport.JsonHttp;

/**
 * An OpenAI-compatible HTTP server ({@code POST /v1/chat/completions}, non-streaming) on the loopback interface. The
 * answers come from a {@link ModelBrain}: the offline {@link DemoModel} in the local stack, a script in tests. Every
 * request body is kept, so tests can assert exactly what the model was shown.
 */
public final class ModelServer implements AutoCloseable {

    private final HttpServer server;
    private final AtomicReference<ModelBrain> brain;
    private final List<JsonNode> requests = new CopyOnWriteArrayList<>();

    private ModelServer(HttpServer server, ModelBrain brain) {
        this.server = server;
        this.brain = new AtomicReference<>(brain);
    }

    public static ModelServer start(int port, ModelBrain brain) {
        try {
            HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
            ModelServer model = new ModelServer(http, brain);
            http.createContext("/v1/chat/completions", model::completions);
            http.createContext("/v1/models", model::models);
            http.setExecutor(Executors.newFixedThreadPool(4, runnable -> {
                Thread thread = new Thread(runnable, "model-server");
                thread.setDaemon(true);
                return thread;
            }));
            http.start();
            return model;
        } catch (IOException e) {
            throw new UncheckedIOException("The model server did not start", e);
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** The base URL an OpenAI client is given, ending in {@code /v1/}. */
    public String baseUrl() {
        return "http://localhost:%d/v1/".formatted(port());
    }

    public void useBrain(ModelBrain next) {
        brain.set(next);
    }

    /** Every chat-completions request received so far, parsed, in order. */
    public List<JsonNode> requests() {
        return List.copyOf(requests);
    }

    public void clearRequests() {
        requests.clear();
    }

    private void completions(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())) {
                JsonHttp.send(exchange, 405, "{\"error\":{\"message\":\"POST only\"}}");
                return;
            }
            JsonNode request;
            try (InputStream body = exchange.getRequestBody()) {
                request = Json.mapper().readTree(body);
            } catch (IOException e) {
                JsonHttp.send(exchange, 400, "{\"error\":{\"message\":\"request body is not JSON\"}}");
                return;
            }
            requests.add(request);
            ModelReply reply;
            try {
                reply = brain.get().respond(new ModelTurn(request));
            } catch (RuntimeException e) {
                JsonHttp.send(exchange, 500, "{\"error\":{\"message\":\"model script failed\"}}");
                return;
            }
            JsonHttp.send(exchange, reply.status(),
                    reply.rawBody() != null ? reply.rawBody() : Json.write(completion(request, reply)));
        }
    }

    private void models(HttpExchange exchange) throws IOException {
        try (exchange) {
            JsonHttp.send(exchange, 200,
                    "{\"object\":\"list\",\"data\":[{\"id\":\"countersign-demo\",\"object\":\"model\"}]}");
        }
    }

    private static ObjectNode completion(JsonNode request, ModelReply reply) {
        ObjectNode root = Json.mapper().createObjectNode();
        root.put("id", "chatcmpl-" + UUID.randomUUID());
        root.put("object", "chat.completion");
        root.put("created", System.currentTimeMillis() / 1000);
        root.put("model", request.path("model").asText("countersign-demo"));
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        if (reply.toolCalls().isEmpty()) {
            message.put("content", reply.text());
            choice.put("finish_reason", "stop");
        } else {
            message.putNull("content");
            ArrayNode calls = message.putArray("tool_calls");
            for (ModelReply.ToolCall call : reply.toolCalls()) {
                ObjectNode node = calls.addObject();
                node.put("id", "call_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
                node.put("type", "function");
                node.putObject("function").put("name", call.name()).put("arguments", call.argumentsJson());
            }
            choice.put("finish_reason", "tool_calls");
        }
        // Not real token counts: one "token" per message received and per answer part, so usage metrics move.
        int prompt = request.path("messages").size();
        int completion = Math.max(1, reply.toolCalls().size());
        root.putObject("usage").put("prompt_tokens", prompt).put("completion_tokens", completion)
                .put("total_tokens", prompt + completion);
        return root;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
