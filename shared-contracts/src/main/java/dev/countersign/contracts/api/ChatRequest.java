package dev.countersign.contracts.api;

/**
 * {@code POST /api/conversations/{id}/messages}: what the person typed.
 *
 * @param mode
 *            {@code act} (the default: the agent reads and proposes) or {@code plan} (analysis, no tools)
 */
public record ChatRequest(String text, String mode) {

    public static final int MAX_LENGTH = 4000;
    public static final String ACT = "act";
    public static final String PLAN = "plan";
}
