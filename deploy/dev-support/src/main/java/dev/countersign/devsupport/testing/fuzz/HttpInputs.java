package dev.countersign.devsupport.testing.fuzz;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Generates the requests for one endpoint from a seeded {@link HostileValues}. Most inputs carry a valid credential and
 * a JSON content type, so they get past the first checks and reach the body's and the path's validation.
 * <p>
 * Why a write endpoint must never answer 2xx to these inputs: its path ids are never the id of something the fuzz
 * tenant may change (garbage, a UUID nobody has, or a {@code knownIds} entry the caller chose because it is in a state
 * that refuses every write), and every generated body has a defect no JSON mapper accepts (malformed text, a top-level
 * value of the wrong type, or every declared property of a stated type with a value of an incompatible type), except
 * the deliberately empty body, which a write endpoint must refuse too.
 */
public final class HttpInputs {

    private static final List<String> BAD_CONTENT_TYPES = List.of("text/plain", "application/xml",
            "application/json; charset=utf-16", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded",
            "application/problem+json", "*/*", "application/json;;;", "application/octet-stream", "json");
    private static final List<String> ACCEPTS = List.of("*/*", "text/html", "application/xml", "text/event-stream",
            "application/json, text/event-stream");
    /** Percent-encodings that are valid URI syntax but odd path segments: invalid UTF-8, NUL, an encoded slash. */
    private static final List<String> RAW_SEGMENTS = List.of("%ED%A0%80", "%C0%AF", "%00", "%2F..%2F..%2Fetc",
            "..", "%FF%FE", "%E2%80%AE", "%20");

    private final HostileValues hostile;
    private final Endpoint endpoint;
    private final List<Credential> credentials;
    private final Map<String, List<String>> knownIds;

    /**
     * @param knownIds
     *            per path parameter name, existing ids to mix in (so some inputs pass the lookup); only ids of things
     *            no write may change
     */
    public HttpInputs(HostileValues hostile, Endpoint endpoint, List<Credential> credentials,
            Map<String, List<String>> knownIds) {
        this.hostile = hostile;
        this.endpoint = endpoint;
        this.credentials = credentials;
        this.knownIds = knownIds;
    }

    public List<HttpInput> generate(int count) {
        List<HttpInput> inputs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            inputs.add(next(i));
        }
        return inputs;
    }

    private HttpInput next(int index) {
        Credential credential = hostile.chance(0.7) ? credentials.get(0) : hostile.pick(credentials);
        String pathAndQuery = path() + query();
        String accept = hostile.chance(0.75) ? acceptable() : hostile.pick(ACCEPTS);
        boolean sendsBody = endpoint.takesBody() || hostile.chance(0.15);
        if (!sendsBody) {
            return new HttpInput(index, endpoint, pathAndQuery, credential, null, accept, null, "none");
        }
        String contentType = hostile.chance(0.85) ? "application/json" : hostile.pick(BAD_CONTENT_TYPES);
        Body body = body();
        byte[] bytes = body.text == null ? null : HostileValues.utf8(body.text);
        String kind = body.kind;
        if (bytes != null && hostile.chance(0.08)) {
            bytes = hostile.corruptBytes(bytes);
            kind += "+bad-utf8";
        }
        return new HttpInput(index, endpoint, pathAndQuery, credential, contentType, accept, bytes, kind);
    }

    private String acceptable() {
        if (endpoint.produces().contains("text/event-stream") && hostile.chance(0.3)) {
            return "text/event-stream";
        }
        return "application/json";
    }

    private String path() {
        String path = endpoint.path();
        for (String name : endpoint.pathParams()) {
            path = path.replace("{" + name + "}", segment(name));
        }
        return path;
    }

    private String segment(String name) {
        List<String> known = knownIds.getOrDefault(name, knownIds.getOrDefault("*", List.of()));
        double draw = hostile.random().nextDouble();
        if (draw < 0.15 && !known.isEmpty()) {
            return encode(hostile.pick(known));
        }
        if (draw < 0.5) {
            return hostile.uuid().toString();
        }
        if (draw < 0.55) {
            return hostile.pick(RAW_SEGMENTS);
        }
        return encode(hostile.chance(0.6) ? hostile.badId() : hostile.string());
    }

    private String query() {
        StringBuilder query = new StringBuilder();
        for (String name : endpoint.queryParams()) {
            if (hostile.chance(0.4)) {
                query.append(query.isEmpty() ? "?" : "&").append(encode(name)).append('=')
                        .append(encode(hostile.chance(0.3) ? hostile.uuid().toString() : hostile.string()));
            }
        }
        if (hostile.chance(0.05)) {
            query.append(query.isEmpty() ? "?" : "&").append(encode(hostile.string())).append('=')
                    .append(encode(hostile.string()));
        }
        return query.toString();
    }

    private record Body(String kind, String text) {
    }

    private Body body() {
        double draw = hostile.random().nextDouble();
        if (draw < 0.2) {
            return new Body("malformed", hostile.malformed(plausibleObject()));
        }
        if (draw < 0.35) {
            return new Body("wrong-type", hostile.incompatibleWith(endpoint.bodyType() == null
                    ? "object"
                    : endpoint.bodyType()));
        }
        if (draw < 0.85) {
            return defectiveObject(false);
        }
        if (draw < 0.9) {
            return defectiveObject(true);
        }
        if (draw < 0.95) {
            return new Body("deep-nesting", hostile.deepNesting());
        }
        return new Body("empty", hostile.chance(0.5) ? null : "");
    }

    /**
     * The declared properties, every one whose type the document states carrying a value of an incompatible type (the
     * defect), the untyped ones half plausible, half hostile. Why every typed property and not one: a property the
     * document lists may not be read at all (a getter's derived value, an ignored field), and a type error there is no
     * defect to the service; the body is guaranteed invalid only while one property it really reads is wrong. Limit:
     * Jackson stops at the first type error, so well-typed hostile values in a body never reach a resource's own
     * validation (query and path parameters do).
     */
    private Body defectiveObject(boolean huge) {
        var properties = new ArrayList<>(endpoint.bodyProperties().keySet());
        boolean anyTyped = endpoint.bodyProperties().values().stream().anyMatch(java.util.Objects::nonNull);
        if (!anyTyped || !"object".equals(endpoint.bodyType())) {
            return new Body("wrong-type", hostile.incompatibleWith(endpoint.bodyType()));
        }
        java.util.Collections.sort(properties);
        List<String> typed = properties.stream().filter(name -> endpoint.bodyProperties().get(name) != null).toList();
        String hugeOne = huge ? hostile.pick(typed) : null;
        StringBuilder json = new StringBuilder("{");
        for (String name : properties) {
            String type = endpoint.bodyProperties().get(name);
            String value;
            if (type != null) {
                value = name.equals(hugeOne) ? hostile.hugeIncompatibleWith(type) : hostile.incompatibleWith(type);
            } else {
                value = hostile.chance(0.5) ? plausible(name, null) : hostile.value(0);
            }
            json.append(json.length() > 1 ? "," : "").append(HostileValues.quote(name)).append(':').append(value);
        }
        if (hostile.chance(0.2)) {
            json.append(',').append(hostile.stringLiteral()).append(':').append(hostile.value(0));
        }
        return new Body(huge ? "huge" : "defective-object", json.append('}').toString());
    }

    private String plausibleObject() {
        StringBuilder json = new StringBuilder("{");
        endpoint.bodyProperties().forEach((name, type) -> json.append(json.length() > 1 ? "," : "")
                .append(HostileValues.quote(name)).append(':').append(plausible(name, type)));
        return json.append('}').toString();
    }

    /** A value that looks right for the property, so the rest of the body is judged. */
    private String plausible(String name, String type) {
        String lower = name.toLowerCase();
        if ("integer".equals(type) || "number".equals(type)) {
            return String.valueOf(hostile.random().nextInt(5));
        }
        if ("boolean".equals(type)) {
            return String.valueOf(hostile.random().nextBoolean());
        }
        if ("array".equals(type)) {
            return "[" + HostileValues.quote(hostile.uuid().toString()) + "]";
        }
        if (lower.endsWith("id") || lower.endsWith("ids")) {
            return HostileValues.quote(hostile.uuid().toString());
        }
        if (lower.contains("hash")) {
            return HostileValues.quote(Long.toHexString(hostile.random().nextLong()).repeat(4).substring(0, 16)
                    .repeat(4));
        }
        return HostileValues.quote(hostile.pick(List.of("enabled", "disabled", "confirm", "low", "EUR", "12.50",
                "alice", "2026-01-01")));
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
