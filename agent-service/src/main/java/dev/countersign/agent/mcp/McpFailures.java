package dev.countersign.agent.mcp;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * What the MCP server answers when the extension itself fails on a message it could not handle: a JSON-RPC "invalid
 * request" error (HTTP 400), not Quarkus' 500 page. Found by McpServerTest's hostile messages: quarkus-mcp-server-http
 * 1.13.0 throws IndexOutOfBoundsException on an empty batch ({@code []}) and ClassCastException on a batch of numbers,
 * answers JSON {@code null} with an empty 500, and never answers a {@code tools/call} without a tool's name. A refusal
 * the HTTP layer already decided (a 401 without a token, a 413 for a body too large) is left as it is.
 * <p>
 * Limit: it answers for the message as a whole ({@code "id": null}); which part of a batch failed is not said.
 */
@ApplicationScoped
public class McpFailures {

    private static final Logger LOG = Logger.getLogger(McpFailures.class);

    /** The largest body /mcp reads: quarkus.http.limits.max-body-size, which the HTTP server enforces first. */
    private static final long MAX_BODY = 256 * 1024;

    void onStart(@Observes Router router) {
        router.route("/mcp").order(Integer.MIN_VALUE).handler(McpFailures::watchForAnEmptyServerError)
                .failureHandler(McpFailures::answer);
        router.post("/mcp").order(-1).handler(BodyHandler.create(false).setBodyLimit(MAX_BODY))
                .handler(McpFailures::refuseACallThatNamesNoTool);
    }

    /**
     * A {@code tools/call} whose {@code params.name} is not a string: answered {@code -32602} here, since the extension
     * never answers it (the request hangs until the client gives up). Runs after sign-in (order -1, after
     * quarkus-oidc's handlers), so an unauthenticated request still gets its 401.
     */
    private static void refuseACallThatNamesNoTool(RoutingContext context) {
        JsonObject message;
        try {
            message = context.body().asJsonObject();
        } catch (RuntimeException notAnObject) {
            context.next();
            return;
        }
        if (message != null && "tools/call".equals(message.getValue("method"))
                && !(message.getValue("params") instanceof JsonObject params
                        && params.getValue("name") instanceof String)) {
            context.response().setStatusCode(200).putHeader("Content-Type", "application/json")
                    .end(new JsonObject().put("jsonrpc", "2.0").put("id", message.getValue("id"))
                            .put("error", new JsonObject().put("code", -32602)
                                    .put("message", "validation_failed: a tools/call names its tool in params.name"))
                            .encode());
            return;
        }
        context.next();
    }

    /**
     * The extension answers a body of JSON {@code null} with an empty 500 of its own, without failing the route; as its
     * headers go out, such an answer to a body that is no JSON-RPC message (not an object or an array) becomes 400.
     */
    private static void watchForAnEmptyServerError(RoutingContext context) {
        context.addHeadersEndHandler(ignored -> {
            if (context.response().getStatusCode() == 500 && !isMessageShaped(context)) {
                context.response().setStatusCode(400);
            }
        });
        context.next();
    }

    private static boolean isMessageShaped(RoutingContext context) {
        String body = context.body() == null || context.body().buffer() == null
                ? ""
                : context.body().buffer().toString().trim();
        return body.startsWith("{") || body.startsWith("[");
    }

    private static void answer(RoutingContext context) {
        int status = context.statusCode();
        Throwable failure = context.failure();
        boolean refusedBySecurity = failure != null && failure.getClass().getName().startsWith("io.quarkus.security.");
        if (refusedBySecurity || (status != -1 && status != 500) || context.response().headWritten()) {
            context.next();
            return;
        }
        LOG.warnf("The MCP server failed on a message (answered 400 invalid request): %s",
                String.valueOf(context.failure()));
        context.response().setStatusCode(400).putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("jsonrpc", "2.0").putNull("id").put("error", new JsonObject()
                        .put("code", -32600).put("message", "invalid_request: the message could not be handled"))
                        .encode());
    }
}
