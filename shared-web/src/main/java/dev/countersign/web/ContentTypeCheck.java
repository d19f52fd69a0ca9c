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
 */
public class ContentTypeCheck {

    @ServerRequestFilter(preMatching = true)
    public void refuseUnparseableContentType(ContainerRequestContext request) {
        String contentType = request.getHeaderString(HttpHeaders.CONTENT_TYPE);
        if (contentType == null) {
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
}
