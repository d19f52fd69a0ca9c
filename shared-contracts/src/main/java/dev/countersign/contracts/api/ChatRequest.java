package dev.countersign.contracts.api;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * {@code POST /api/conversations/{id}/messages}: what the person typed.
 *
 * @param mode
 *            {@code act} (the default: the agent reads and proposes) or {@code plan} (analysis, no tools)
 */
public record ChatRequest(
        @NotBlank(message = "must not be blank") @Size(max = ChatRequest.MAX_LENGTH, message = "must be at most {max} characters") @Pattern(regexp = ChatRequest.WITHOUT_CONTROL_CHARACTERS, message = "must not contain control characters other than line breaks and tabs") String text,
        @Pattern(regexp = ChatRequest.ACT + "|"
                + ChatRequest.PLAN, message = "must be \"act\" (the default) or \"plan\"") String mode) {

    /** Any text but control characters other than line breaks and tabs. */
    static final String WITHOUT_CONTROL_CHARACTERS = "[\\n\\r\\t\\P{Cc}]*";

    public static final int MAX_LENGTH = 4000;
    public static final String ACT = "act";
    public static final String PLAN = "plan";
}
