package dev.countersign.contracts.json;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The one canonical serialisation both services hash: object keys sorted by code point, no insignificant whitespace
 * (separators {@code ,} and {@code :}), UTF-8, numbers as written by {@link java.math.BigDecimal#toPlainString()}.
 * <p>
 * Limit: two documents that differ only in number formatting ({@code 1.0} against {@code 1.00}) are different here.
 * That is why the catalogue carries money as decimal strings normalised to two places before anything is hashed.
 */
public final class CanonicalJson {

    private static final JsonFactory FACTORY = new JsonFactory();

    private CanonicalJson() {
    }

    public static byte[] toBytes(JsonNode node) {
        return toString(node).getBytes(StandardCharsets.UTF_8);
    }

    public static String toString(JsonNode node) {
        var out = new java.io.StringWriter();
        try (JsonGenerator generator = FACTORY.createGenerator(out)) {
            write(node, generator);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static void write(JsonNode node, JsonGenerator generator) throws IOException {
        switch (node.getNodeType()) {
            case OBJECT -> {
                generator.writeStartObject();
                List<String> names = new ArrayList<>();
                Iterator<String> it = node.fieldNames();
                it.forEachRemaining(names::add);
                names.sort(null);
                for (String name : names) {
                    generator.writeFieldName(name);
                    write(node.get(name), generator);
                }
                generator.writeEndObject();
            }
            case ARRAY -> {
                generator.writeStartArray();
                for (JsonNode element : node) {
                    write(element, generator);
                }
                generator.writeEndArray();
            }
            case STRING -> generator.writeString(node.textValue());
            case NUMBER -> generator.writeNumber(node.decimalValue().toPlainString());
            case BOOLEAN -> generator.writeBoolean(node.booleanValue());
            case NULL, MISSING -> generator.writeNull();
            default -> throw new IllegalArgumentException("Not a JSON value: " + node.getNodeType());
        }
    }
}
