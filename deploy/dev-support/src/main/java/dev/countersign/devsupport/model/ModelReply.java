package dev.countersign.devsupport.model;

import java.util.List;

/** What a model server answers: either text, or one or more tool calls with their JSON arguments. */
public record ModelReply(String text, List<ToolCall> toolCalls, String rawBody, int status) {

    public ModelReply(String text, List<ToolCall> toolCalls) {
        this(text, toolCalls, null, 200);
    }

    /** A 200 answer whose body is {@code body} as is: for testing a model endpoint that returns garbage. */
    public static ModelReply raw(String body) {
        return new ModelReply(null, List.of(), body, 200);
    }

    /** An error answer of the model's API, {@code status} with an OpenAI-style error body. */
    public static ModelReply error(int status, String message) {
        return new ModelReply(null, List.of(), "{\"error\":{\"message\":\"" + message + "\",\"type\":"
                + "\"invalid_request_error\"}}", status);
    }

    public record ToolCall(String name, String argumentsJson) {
    }

    public static ModelReply text(String text) {
        return new ModelReply(text, List.of());
    }

    public static ModelReply toolCall(String name, String argumentsJson) {
        return new ModelReply(null, List.of(new ToolCall(name, argumentsJson)));
    }

    public static ModelReply toolCalls(ToolCall... calls) {
        return new ModelReply(null, List.of(calls));
    }
}
