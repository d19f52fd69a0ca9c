package dev.countersign.contracts.catalogue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Tier;
import dev.countersign.contracts.json.Json;

/**
 * Reads the kinds' declarations: every {@code countersign/kinds.list} on the classpath names declaration resources, one
 * per line ({@code #} starts a comment). Strict: an unknown member, a missing one, a placeholder or an editable field
 * that names no parameter, or a kind declared twice is an error that stops the start, naming the file.
 */
final class KindDeclarations {

    static final String LISTS = "countersign/kinds.list";
    private static final Set<String> MEMBERS = Set.of("kind", "domain", "label", "description", "tool", "params",
            "editable", "tier", "budgetAmount", "headline");
    private static final Set<String> PARAM_MEMBERS = Set.of("name", "type", "required", "maxLength", "description",
            "refersTo", "picker", "default");
    private static final Set<String> TIER_MEMBERS = Set.of("base", "highAtThreshold", "why");
    private static final Set<String> BUDGET_MEMBERS = Set.of("param", "changeFromBefore");

    private KindDeclarations() {
    }

    /** Every declared kind, by kind, in the order the lists name them. */
    static Map<String, ActionDefinition> load() {
        ClassLoader loader = KindDeclarations.class.getClassLoader();
        Map<String, ActionDefinition> definitions = new LinkedHashMap<>();
        try {
            for (URL list : Collections.list(loader.getResources(LISTS))) {
                for (String resource : lines(list)) {
                    ActionDefinition definition = read(loader, resource);
                    if (definitions.put(definition.kind(), definition) != null) {
                        throw new IllegalStateException("The kind " + definition.kind() + " is declared twice ("
                                + resource + ")");
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return definitions;
    }

    private static List<String> lines(URL list) throws IOException {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(list.openStream(),
                StandardCharsets.UTF_8))) {
            return reader.lines().map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("#"))
                    .toList();
        }
    }

    private static ActionDefinition read(ClassLoader loader, String resource) throws IOException {
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("A kinds list names " + resource + ", which is not on the classpath");
            }
            return parse(Json.mapper().readTree(in), resource);
        } catch (RuntimeException e) {
            throw new IllegalStateException("The action kind declaration " + resource + " is not valid: "
                    + e.getMessage(), e);
        }
    }

    static ActionDefinition parse(JsonNode declaration, String source) {
        only(declaration, MEMBERS, "the declaration");
        List<ParamSpec> params = new ArrayList<>();
        for (JsonNode param : declaration.withArray("params")) {
            only(param, PARAM_MEMBERS, "a parameter");
            ParamType type = ParamType.valueOf(text(param, "type").toUpperCase(Locale.ROOT));
            params.add(new ParamSpec(text(param, "name"), type, param.path("required").asBoolean(false),
                    param.path("maxLength").asInt(0), text(param, "description"), optional(param, "refersTo"),
                    oneOf(optional(param, "picker"), ParamSpec.WALLET_PICKER, ParamSpec.CATEGORY_PICKER),
                    oneOf(optional(param, "default"), ParamSpec.TODAY)));
        }
        Set<String> names = new LinkedHashSet<>();
        params.forEach(param -> {
            if (!names.add(param.name())) {
                throw new IllegalArgumentException("two parameters named " + param.name());
            }
            if ((param.type() == ParamType.TEXT || param.type() == ParamType.LINES) && param.maxLength() <= 0) {
                throw new IllegalArgumentException("the text parameter " + param.name() + " needs a maxLength");
            }
        });
        Set<String> editable = new LinkedHashSet<>();
        declaration.withArray("editable").forEach(field -> editable.add(known(names, field.asText(), "editable")));
        List<String> ordered = params.stream().map(ParamSpec::name).filter(editable::contains).toList();
        JsonNode tier = declaration.path("tier");
        only(tier, TIER_MEMBERS, "the tier");
        List<String> highAt = new ArrayList<>();
        tier.withArray("highAtThreshold").forEach(field -> {
            String[] parts = field.asText().split("\\.", 2);
            if (parts.length != 2 || !Set.of("params", "before").contains(parts[0])) {
                throw new IllegalArgumentException("highAtThreshold names params.<name> or before.<name>, not "
                        + field.asText());
            }
            highAt.add(parts[0] + "." + known(names, parts[1], "highAtThreshold"));
        });
        BudgetAmount budget = BudgetAmount.NONE;
        if (declaration.has("budgetAmount")) {
            JsonNode amount = declaration.get("budgetAmount");
            only(amount, BUDGET_MEMBERS, "the budget amount");
            budget = new BudgetAmount(known(names, text(amount, "param"), "budgetAmount"),
                    amount.path("changeFromBefore").asBoolean(false));
        }
        String headline = text(declaration, "headline");
        Headline.placeholders(headline).stream().filter(name -> !Headline.CHANGES.equals(name))
                .forEach(name -> known(names, name, "the headline"));
        return new ActionDefinition(text(declaration, "kind"), text(declaration, "domain"),
                text(declaration, "label"), text(declaration, "description"), text(declaration, "tool"),
                List.copyOf(params), Collections.unmodifiableSet(new LinkedHashSet<>(ordered)),
                new TierRule(Tier.valueOf(text(tier, "base").toUpperCase(Locale.ROOT)), List.copyOf(highAt)), budget,
                headline);
    }

    private static void only(JsonNode node, Set<String> allowed, String what) {
        if (!node.isObject()) {
            throw new IllegalArgumentException(what + " must be a JSON object");
        }
        for (Iterator<String> fields = node.fieldNames(); fields.hasNext();) {
            String field = fields.next();
            if (!allowed.contains(field)) {
                throw new IllegalArgumentException(what + " has an unknown member '" + field + "'; allowed: "
                        + allowed.stream().sorted().toList());
            }
        }
    }

    private static String text(JsonNode node, String field) {
        if (!node.hasNonNull(field) || !node.get(field).isTextual() || node.get(field).asText().isBlank()) {
            throw new IllegalArgumentException("'" + field + "' is required (a non-empty string)");
        }
        return node.get(field).asText();
    }

    private static String optional(JsonNode node, String field) {
        return node.hasNonNull(field) ? node.get(field).asText() : null;
    }

    private static String oneOf(String value, String... allowed) {
        if (value != null && !List.of(allowed).contains(value)) {
            throw new IllegalArgumentException("'" + value + "' is not one of " + List.of(allowed));
        }
        return value;
    }

    private static String known(Set<String> names, String name, String where) {
        if (!names.contains(name)) {
            throw new IllegalArgumentException(where + " names '" + name + "', which is not a parameter");
        }
        return name;
    }
}
