package dev.countersign.contracts.api;

/** {@code POST /api/conversations/{id}/messages}: what the person typed. */
public record ChatRequest(String text) {

    public static final int MAX_LENGTH = 4000;
}
