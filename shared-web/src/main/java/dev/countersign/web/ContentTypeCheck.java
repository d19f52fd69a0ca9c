package dev.countersign.web;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import dev.countersign.contracts.ErrorCode;

/**
 * Refuses a request whose {@code Content-Type} is not a media type at all ({@code json}, {@code application/}) with 415
 * {@code unsupported_request}, before routing. Why here: RESTEasy Reactive parses the header while it chooses among a
 * resource's media types (the agent's chat answers JSON or an event stream), and its IllegalArgumentException would
 * otherwise reach the catch-all mapper as a 500 (found by the agent's HttpFuzzTest). A parseable but unsupported type
 * is left to the framework's own 415.
 * <p>
 * A safe method's request ({@code GET}, {@code HEAD}, {@code OPTIONS}) is checked only when it has a body (HTTP/1.1's
 * own rule: a {@code Transfer-Encoding}, or a {@code Content-Length} above 0): a header that describes no body (a GET a
 * proxy or client library decorated) is not the caller's mistake to refuse. Every other method is checked even with an
 * empty body, since its resource may declare the media types it consumes and RESTEasy then parses the header while
 * matching (a POST with {@code Content-Type: json} and no body was a 500, found by the agent's HttpFuzzTest). Limit: a
 * bodiless safe request with such a header goes on to the resource; a GET resource that declared {@code @Consumes}
 * would make it a 500 again, which the HTTP fuzz tests would show.
 */
public class ContentTypeCheck {

    @ServerRequestFilter(preMatching = true)
    public void refuseUnparseableContentType(ContainerRequestContext request) {
        String contentType = request.getHeaderString(HttpHeaders.CONTENT_TYPE);
        if (contentType == null || (isSafe(request.getMethod()) && !hasBody(request))) {
            return;
        }
        try {
            MediaType.valueOf(contentType);
        } catch (IllegalArgumentException notAMediaType) {
            throw new ProblemException(ErrorCode.UNSUPPORTED_REQUEST,
                    "The Content-Type header is not a media type; send the body as JSON with Content-Type"
                            + " application/json.");
        }
    }

    private static boolean isSafe(String method) {
        return "GET".equals(method) || "HEAD".equals(method) || "OPTIONS".equals(method);
    }

    /** Whether the request announces a body: chunked (any Transfer-Encoding) or a Content-Length above 0. */
    static boolean hasBody(ContainerRequestContext request) {
        if (request.getHeaderString("Transfer-Encoding") != null) {
            return true;
        }
        String length = request.getHeaderString(HttpHeaders.CONTENT_LENGTH);
        if (length == null) {
            return false;
        }
        try {
            return Long.parseLong(length.trim()) > 0;
        } catch (NumberFormatException unreadable) {
            // A length no one can read: the server refuses it itself; treat it as a body to be safe.
            return true;
        }
    }
}
