package dev.countersign.contracts.api;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.catalogue.Violation;

/**
 * RFC 9457 problem details with a stable {@code code}. {@code action} is set when a state conflict answers with the
 * action's current status, so a double tap or a race loser learns what won.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(
        String type,
        String title,
        int status,
        String detail,
        String code,
        List<Violation> violations,
        ActionView action) {

    public static final String MEDIA_TYPE = "application/problem+json";

    public static Problem of(ErrorCode code, String detail) {
        return new Problem("https://countersign.dev/problems/" + code.code(), title(code), code.httpStatus(), detail,
                code.code(), null, null);
    }

    /** The same problem under another HTTP status (for refusals the HTTP layer decided). */
    public Problem withStatus(int httpStatus) {
        return new Problem(type, title, httpStatus, detail, code, violations, action);
    }

    public Problem withViolations(List<Violation> list) {
        return new Problem(type, title, status, detail, code, list, action);
    }

    public Problem withAction(ActionView view) {
        return new Problem(type, title, status, detail, code, violations, view);
    }

    private static String title(ErrorCode code) {
        String words = code.code().replace('_', ' ');
        return Character.toUpperCase(words.charAt(0)) + words.substring(1);
    }
}
