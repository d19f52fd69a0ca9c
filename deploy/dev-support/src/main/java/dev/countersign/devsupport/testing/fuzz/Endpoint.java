package dev.countersign.devsupport.testing.fuzz;

import java.util.List;
import java.util.Map;

/**
 * One operation of a service's HTTP API, as its OpenAPI document describes it.
 *
 * @param bodyType
 *            the OpenAPI type of the request body ("object", "array", ...), null when the operation takes none
 * @param bodyProperties
 *            the body's property names and their OpenAPI types (null type: not stated)
 */
public record Endpoint(String method, String path, List<String> pathParams, List<String> queryParams,
        String bodyType, Map<String, String> bodyProperties, List<String> produces) {

    /** {@code POST /api/actions/{id}/confirm}: how tests and failure messages name it. */
    public String key() {
        return method + " " + path;
    }

    public boolean isRead() {
        return "GET".equals(method);
    }

    public boolean takesBody() {
        return bodyType != null;
    }

    @Override
    public String toString() {
        return key();
    }
}
