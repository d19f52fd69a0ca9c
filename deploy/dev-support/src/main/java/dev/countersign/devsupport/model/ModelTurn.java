package dev.countersign.devsupport.model;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/** Read-only view of one OpenAI chat-completions request, as a model server needs it. */
public record ModelTurn(JsonNode request) {

    public JsonNode messages() {
        return request.path("messages");
    }

    public String lastUserText() {
        JsonNode messages = messages();
        for (int i = messages.size() - 1; i >= 0; i--) {
            if ("user".equals(messages.get(i).path("role").asText())) {
                return messages.get(i).path("content").asText();
            }
        }
        return "";
    }

    /** Tool results that arrived after the last assistant message, i.e. the answers the model is waiting for. */
    public List<String> pendingToolResults() {
        List<String> results = new ArrayList<>();
        JsonNode messages = messages();
        for (int i = messages.size() - 1; i >= 0 && "tool".equals(messages.get(i).path("role").asText()); i--) {
            results.add(0, messages.get(i).path("content").asText());
        }
        return results;
    }

    /** Every tool result in the request, in order. */
    public List<String> toolResults() {
        List<String> results = new ArrayList<>();
        for (JsonNode message : messages()) {
            if ("tool".equals(message.path("role").asText())) {
                results.add(message.path("content").asText());
            }
        }
        return results;
    }

    public String systemText() {
        for (JsonNode message : messages()) {
            if ("system".equals(message.path("role").asText())) {
                return message.path("content").asText();
            }
        }
        return "";
    }

    public List<String> toolNames() {
        List<String> names = new ArrayList<>();
        request.path("tools").forEach(tool -> names.add(tool.path("function").path("name").asText()));
        return names;
    }

    /** The allowed values of {@code argument} in the schema of {@code tool}; empty if it is not an enum. */
    public List<String> enumOf(String tool, String argument) {
        List<String> values = new ArrayList<>();
        for (JsonNode offered : request.path("tools")) {
            if (offered.path("function").path("name").asText().equals(tool)) {
                offered.path("function").path("parameters").path("properties").path(argument).path("enum")
                        .forEach(value -> values.add(value.asText()));
            }
        }
        return values;
    }

    public boolean offersTool(String name) {
        return toolNames().contains(name);
    }
}
