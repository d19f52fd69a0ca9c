package dev.countersign.contracts.catalogue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The sentence a person approves, from a kind's declared template: {@code {param}} is the parameter's value (named as
 * {@link Names} says when it refers to a row); {@code [...]} is kept only when every parameter in it is present;
 * {@code {*changes}} lists the editable fields the proposal sets, as {@code field to "value"}. Checked when the
 * declaration is loaded: a placeholder that names no parameter stops the start.
 */
final class Headline {

    static final String CHANGES = "*changes";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([^{}]+)}");
    private static final Pattern OPTIONAL = Pattern.compile("\\[([^\\[\\]]*)]");

    private Headline() {
    }

    /** The names of the template's placeholders. */
    static List<String> placeholders(String template) {
        List<String> names = new ArrayList<>();
        Matcher matcher = PLACEHOLDER.matcher(template);
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }

    static String render(ActionDefinition definition, JsonNode params, Names names) {
        Matcher optional = OPTIONAL.matcher(definition.headline());
        StringBuilder kept = new StringBuilder();
        while (optional.find()) {
            boolean present = placeholders(optional.group(1)).stream()
                    .allMatch(name -> CHANGES.equals(name) || params.hasNonNull(name));
            optional.appendReplacement(kept, Matcher.quoteReplacement(present ? optional.group(1) : ""));
        }
        optional.appendTail(kept);
        Matcher placeholder = PLACEHOLDER.matcher(kept);
        StringBuilder sentence = new StringBuilder();
        while (placeholder.find()) {
            String name = placeholder.group(1);
            placeholder.appendReplacement(sentence, Matcher.quoteReplacement(CHANGES.equals(name)
                    ? changes(definition, params)
                    : value(definition.param(name).orElseThrow(), params, names)));
        }
        placeholder.appendTail(sentence);
        return sentence.toString();
    }

    private static String value(ParamSpec spec, JsonNode params, Names names) {
        if (!params.hasNonNull(spec.name())) {
            return "";
        }
        String value = params.get(spec.name()).asText();
        return spec.refersTo() == null ? value : names.name(spec.refersTo(), value);
    }

    private static String changes(ActionDefinition definition, JsonNode params) {
        List<String> changes = new ArrayList<>();
        for (ParamSpec spec : definition.params()) {
            if (definition.editableFields().contains(spec.name()) && params.hasNonNull(spec.name())) {
                changes.add("%s to \"%s\"".formatted(spec.name(), params.get(spec.name()).asText()));
            }
        }
        return String.join(", ", changes);
    }
}
