package dev.countersign.agent.tools;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The JSON arguments of one tool call, read strictly: a member the tool does not declare, a value outside an enum, a
 * malformed date or identifier is refused with an {@link ArgumentRefused} that names what is allowed. Nothing is
 * silently dropped or guessed.
 */
public final class ToolArguments {

    private final ObjectNode json;

    public ToolArguments(ObjectNode json) {
        this.json = json;
    }

    /** Refuses any member not in {@code declared}. */
    public ToolArguments onlyDeclared(Collection<String> declared) {
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> names = json.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!declared.contains(name)) {
                unknown.add(name);
            }
        }
        if (!unknown.isEmpty()) {
            throw new ArgumentRefused("unknown argument(s) %s; this tool takes only %s".formatted(unknown,
                    declared.stream().sorted().toList()));
        }
        return this;
    }

    public boolean has(String name) {
        JsonNode value = json.get(name);
        return value != null && !value.isNull() && !(value.isTextual() && value.asText().isBlank());
    }

    /** The value as text, or empty when absent, null or blank. Numbers and booleans are read as their text. */
    public Optional<String> text(String name) {
        if (!has(name)) {
            return Optional.empty();
        }
        JsonNode value = json.get(name);
        if (value.isContainerNode()) {
            throw new ArgumentRefused("%s must be a single value, not %s".formatted(name, value.getNodeType()));
        }
        return Optional.of(value.asText().strip());
    }

    /** One of {@code allowed}, matched ignoring case, returned as spelled in {@code allowed}. */
    public Optional<String> oneOf(String name, List<String> allowed) {
        Optional<String> given = text(name);
        if (given.isEmpty()) {
            return Optional.empty();
        }
        String wanted = given.get().toLowerCase(Locale.ROOT);
        return Optional.of(allowed.stream().filter(a -> a.toLowerCase(Locale.ROOT).equals(wanted)).findFirst()
                .orElseThrow(() -> new ArgumentRefused("%s \"%s\" is not one of the allowed values %s"
                        .formatted(name, given.get(), allowed))));
    }

    /** An id in the UUID form ({@code 8-4-4-4-12} hexadecimal digits). */
    public Optional<UUID> uuid(String name) {
        return text(name).map(text -> {
            UUID id = uuidOrNull(text);
            if (id == null) {
                throw new ArgumentRefused("%s must be an id like 123e4567-e89b-12d3-a456-426614174000".formatted(name));
            }
            return id;
        });
    }

    /**
     * {@code text} as a UUID in its canonical form (36 characters: {@link UUID#fromString} also takes shorter groups),
     * or null.
     */
    public static UUID uuidOrNull(String text) {
        if (text == null || text.length() != 36) {
            return null;
        }
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException notAnId) {
            return null;
        }
    }

    public Optional<LocalDate> date(String name) {
        return text(name).map(text -> {
            try {
                return LocalDate.parse(text);
            } catch (DateTimeParseException e) {
                throw new ArgumentRefused("%s \"%s\" is not a date in the form yyyy-MM-dd".formatted(name, text));
            }
        });
    }

    public Optional<Integer> integer(String name, int min, int max) {
        return text(name).map(text -> {
            try {
                int value = Integer.parseInt(text);
                if (value >= min && value <= max) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // refused below
            }
            throw new ArgumentRefused("%s must be a whole number from %d to %d".formatted(name, min, max));
        });
    }
}
