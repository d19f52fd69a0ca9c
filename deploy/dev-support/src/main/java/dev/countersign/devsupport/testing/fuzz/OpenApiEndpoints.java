package dev.countersign.devsupport.testing.fuzz;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.json.Json;

/**
 * The operations a service serves, read from its own OpenAPI document, so a new endpoint is fuzzed without editing a
 * test. Limit: only what the document lists; a route outside JAX-RS (a Vert.x route) is not in it.
 */
public final class OpenApiEndpoints {

    private static final Set<String> METHODS = Set.of("get", "post", "put", "delete", "patch");

    private OpenApiEndpoints() {
    }

    public static List<Endpoint> read(String openApiJson) {
        JsonNode document;
        try {
            document = Json.mapper().readTree(openApiJson);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("Not an OpenAPI document in JSON", e);
        }
        List<Endpoint> endpoints = new ArrayList<>();
        Iterator<Map.Entry<String, JsonNode>> paths = document.path("paths").fields();
        while (paths.hasNext()) {
            var path = paths.next();
            Iterator<Map.Entry<String, JsonNode>> operations = path.getValue().fields();
            while (operations.hasNext()) {
                var operation = operations.next();
                if (METHODS.contains(operation.getKey())) {
                    endpoints.add(endpoint(document, operation.getKey().toUpperCase(), path.getKey(),
                            operation.getValue()));
                }
            }
        }
        return endpoints;
    }

    private static Endpoint endpoint(JsonNode document, String method, String path, JsonNode operation) {
        List<String> pathParams = new ArrayList<>();
        List<String> queryParams = new ArrayList<>();
        for (JsonNode parameter : operation.path("parameters")) {
            String in = parameter.path("in").asText();
            if ("path".equals(in)) {
                pathParams.add(parameter.path("name").asText());
            } else if ("query".equals(in)) {
                queryParams.add(parameter.path("name").asText());
            }
        }
        // A path parameter the document forgot is still in the template.
        var template = java.util.regex.Pattern.compile("\\{([^}/]+)}").matcher(path);
        while (template.find()) {
            if (!pathParams.contains(template.group(1))) {
                pathParams.add(template.group(1));
            }
        }
        String bodyType = null;
        Map<String, String> properties = new LinkedHashMap<>();
        JsonNode content = operation.path("requestBody").path("content");
        if (!content.isMissingNode() && content.size() > 0) {
            JsonNode schema = resolve(document, content.elements().next().path("schema"));
            bodyType = schema.path("type").asText("object");
            schema.path("properties").fields().forEachRemaining(property -> properties.put(property.getKey(),
                    resolve(document, property.getValue()).path("type").asText(null)));
        }
        List<String> produces = new ArrayList<>();
        operation.path("responses").elements().forEachRemaining(
                response -> response.path("content").fieldNames().forEachRemaining(produces::add));
        return new Endpoint(method, path, List.copyOf(pathParams), List.copyOf(queryParams), bodyType,
                java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(properties)), List.copyOf(produces));
    }

    private static JsonNode resolve(JsonNode document, JsonNode schema) {
        JsonNode resolved = schema;
        for (int hops = 0; hops < 10 && resolved.has("$ref"); hops++) {
            String ref = resolved.get("$ref").asText();
            resolved = document.at(ref.substring(1));
        }
        if (resolved.has("allOf") && resolved.get("allOf").size() == 1) {
            return resolve(document, resolved.get("allOf").get(0));
        }
        return resolved;
    }
}
