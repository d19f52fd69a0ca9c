package dev.countersign.agent.mcp;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * Answers for the malformed messages quarkus-mcp-server-http 1.13.0 mishandles, found by McpServerTest's hostile
 * messages. Without this:
 * <ul>
 * <li>an empty batch ({@code []}) made it throw IndexOutOfBoundsException, and a batch of numbers ClassCastException,
 * each a 500: now 400 with a JSON-RPC "invalid request";</li>
 * <li>JSON {@code null} got an empty 500 of its own: now 400;</li>
 * <li>a {@code tools/call} without a string {@code params.name}, alone or in a batch, was never answered; one whose
 * {@code params.arguments} is not an object (ClassCastException) or has a member that is JSON {@code null}
 * (NullPointerException) got -32603 "Internal error" (McpIT's generated calls found both): each is now a JSON-RPC
 * {@code -32602} error (a batch: 400 "invalid request"). A null argument is refused, not dropped: every tool's input
 * schema declares its arguments' types, and null is none of them.</li>
 * </ul>
 * Only POSTs to the MCP paths are touched, and only for those causes: any other failure stays the server error it is,
 * and a refusal the HTTP layer already decided (401 without a token, 413 for a body too large) is left alone. The body
 * is read after sign-in (order -1, after quarkus-oidc's authentication and authorization), so an unauthenticated
 * request still gets its 401 (McpServerTest).
 * <p>
 * Limits: a batch is answered as a whole ({@code "id": null}); it covers the messages found, not every malformed one
 * the extension may mishandle (the hostile test is the evidence).
 */
@ApplicationScoped
public class McpFailures {

    private static final Logger LOG = Logger.getLogger(McpFailures.class);
    /** The MCP server's paths: those of its OIDC tenant ({@code /mcp}, {@code /mcp/*}), one list for both. */
    static final String PATHS = "quarkus.oidc.mcp.tenant-paths";

    private final long maxBody;
    private final List<String> paths;

    public McpFailures(@ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize maxBody,
            @ConfigProperty(name = PATHS) List<String> paths) {
        this.maxBody = maxBody.asLongValue();
        this.paths = paths;
    }

    void onStart(@Observes Router router) {
        for (String path : paths) {
            router.post(path).order(Integer.MIN_VALUE).handler(McpFailures::watchForAnEmptyServerError)
                    .failureHandler(McpFailures::answerAMalformedMessage);
            router.post(path).order(-1).handler(BodyHandler.create(false).setBodyLimit(maxBody))
                    .handler(McpFailures::refuseAMalformedCall);
        }
    }

    private static void answerAMalformedMessage(RoutingContext context) {
        Throwable failure = context.failure();
        boolean malformed = failure instanceof IndexOutOfBoundsException || failure instanceof ClassCastException;
        if (!malformed || context.response().headWritten()) {
            context.next();
            return;
        }
        LOG.warnf(failure, "The MCP server failed on a malformed message (answered 400 invalid request)");
        invalidRequest(context, "the message could not be handled");
    }

    /**
     * JSON {@code null} (or any body that is no object or array) gets an empty 500 from the extension without failing
     * the route; as its headers go out, such an answer becomes 400.
     */
    private static void watchForAnEmptyServerError(RoutingContext context) {
        context.addHeadersEndHandler(ignored -> {
            if (context.response().getStatusCode() == 500 && !isMessageShaped(context)) {
                context.response().setStatusCode(400);
            }
        });
        context.next();
    }

    private static void refuseAMalformedCall(RoutingContext context) {
        Object body;
        try {
            body = context.body().buffer() == null ? null : Json.decodeValue(context.body().buffer());
        } catch (RuntimeException notJson) {
            context.next(); // the extension answers a parse error itself
            return;
        }
        if (body instanceof JsonArray batch && batch.stream().anyMatch(message -> malformedCall(message) != null)) {
            invalidRequest(context, "a tools/call in the batch is malformed");
        } else if (body instanceof JsonObject call && malformedCall(call) != null) {
            context.response().setStatusCode(200).putHeader("Content-Type", "application/json")
                    .end(new JsonObject().put("jsonrpc", "2.0").put("id", call.getValue("id"))
                            .put("error", new JsonObject().put("code", -32602)
                                    .put("message", "validation_failed: " + malformedCall(call)))
                            .encode());
        } else {
            context.next();
        }
    }

    /** What is wrong with a {@code tools/call} the extension would mishandle, or null. */
    static String malformedCall(Object message) {
        if (!(message instanceof JsonObject call && "tools/call".equals(call.getValue("method")))) {
            return null;
        }
        if (!(call.getValue("params") instanceof JsonObject params && params.getValue("name") instanceof String)) {
            return "a tools/call names its tool in params.name";
        }
        Object arguments = params.getValue("arguments");
        if (arguments != null && !(arguments instanceof JsonObject)) {
            return "params.arguments must be a JSON object";
        }
        if (arguments instanceof JsonObject members) {
            for (String name : members.fieldNames()) {
                if (members.getValue(name) == null) {
                    return "an argument is null (no tool takes null): leave it out instead";
                }
            }
        }
        return null;
    }

    private static boolean isMessageShaped(RoutingContext context) {
        String body = context.body() == null || context.body().buffer() == null
                ? ""
                : context.body().buffer().toString().trim();
        return body.startsWith("{") || body.startsWith("[");
    }

    private static void invalidRequest(RoutingContext context, String why) {
        context.response().setStatusCode(400).putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("jsonrpc", "2.0").putNull("id").put("error",
                        new JsonObject().put("code", -32600).put("message", "invalid_request: " + why)).encode());
    }
}
