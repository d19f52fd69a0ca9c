package dev.countersign.agent.turn;

import java.util.Set;

import jakarta.ws.rs.WebApplicationException;

import org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException;

import dev.langchain4j.exception.ContentFilteredException;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InvalidRequestException;

/**
 * Which failures of a model call count for the circuit breaker ({@link ModelCalls}): those of the model's endpoint
 * (unreachable, timed out, a 5xx, a 429, a 401 for a bad key, an unreadable answer), which every person would meet, and
 * not those one request brings on itself (a 400, 413 or 422: a context too long, content filtered), which a person
 * could otherwise send on purpose to pause the model for everyone. Nor the bulkhead's own refusals: a busy instance is
 * not a failing model.
 */
final class ModelOutages {

    private static final Set<Integer> THE_REQUESTS_OWN = Set.of(400, 413, 422);

    private ModelOutages() {
    }

    static boolean isOutage(Throwable failure) {
        if (failure instanceof BulkheadException) {
            return false; // the instance's own bound (too many calls in flight), not the model's failure
        }
        // The status, where the chain carries one, decides: LangChain4j maps several 4xx to one exception type.
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof HttpException http) {
                return !THE_REQUESTS_OWN.contains(http.statusCode());
            }
            if (cause instanceof WebApplicationException web && web.getResponse() != null) {
                return !THE_REQUESTS_OWN.contains(web.getResponse().getStatus());
            }
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof InvalidRequestException || cause instanceof ContentFilteredException) {
                return false;
            }
        }
        return true;
    }
}
