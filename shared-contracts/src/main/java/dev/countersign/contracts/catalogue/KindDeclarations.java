package dev.countersign.contracts.catalogue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

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
    private static final Pattern KIND = Pattern.compile("[a-z][a-z0-9]*(\\.[a-z][a-z0-9]*){1,5}");
    private static final Pattern TOOL = Pattern.compile("[a-z][a-z0-9_]{0,63}");
    private static final Pattern ROW_TYPE = Pattern.compile("[a-z][a-z0-9]{0,30}");
    private static final Pattern FILE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*");
    private static final Set<String> MEMBERS = Set.of("kind", "domain", "label", "description", "tool", "params",
            "editable", "personEditable", "tier", "budgetAmount", "headline");
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
        Set<String> tools = new HashSet<>();
        try {
            for (URL list : Collections.list(loader.getResources(LISTS))) {
                for (String file : lines(list)) {
                    ActionDefinition definition = read(list, file);
                    if (definitions.put(definition.kind(), definition) != null) {
                        throw new IllegalStateException("The kind " + definition.kind() + " is declared twice ("
                                + file + ")");
                    }
                    if (!tools.add(definition.tool())) {
                        throw new IllegalStateException("The tool " + definition.tool() + " is declared twice ("
                                + file + ")");
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

    /** The declaration {@code file} names, beside {@code list} (its directory, in the same jar or folder). */
    private static ActionDefinition read(URL list, String file) throws IOException {
        if (!FILE.matcher(file).matches() || file.contains("..")) {
            throw new IllegalStateException("A kinds list (" + list + ") names '" + file
                    + "', which is not a path below the list's directory");
        }
        String base = list.toString();
        URL declaration = URI.create(base.substring(0, base.lastIndexOf('/') + 1) + file).toURL();
        try (InputStream in = declaration.openStream()) {
            return parse(Json.mapper().readTree(in), file);
        } catch (java.io.FileNotFoundException e) {
            throw new IllegalStateException("A kinds list (" + list + ") names " + file + ", which is not beside it",
                    e);
        } catch (RuntimeException e) {
            throw new IllegalStateException("The action kind declaration " + file + " is not valid: " + e.getMessage(),
                    e);
        }
    }

    static ActionDefinition parse(JsonNode declaration, String source) {
        only(declaration, MEMBERS, "the declaration");
        List<ParamSpec> params = new ArrayList<>();
        for (JsonNode param : declaration.withArray("params")) {
            only(param, PARAM_MEMBERS, "a parameter");
            ParamType type = ParamType.valueOf(text(param, "type").toUpperCase(Locale.ROOT));
            if (param.has("required") && !param.get("required").isBoolean()) {
                throw new IllegalArgumentException("'required' of " + text(param, "name") + " must be true or false");
            }
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
            if (param.refersTo() != null && !ROW_TYPE.matcher(param.refersTo()).matches()) {
                throw new IllegalArgumentException(
                        "refersTo of " + param.name() + " must be a row type such as wallet");
            }
            requireType(param, ParamSpec.WALLET_PICKER.equals(param.picker()), ParamType.UUID, "a wallet picker");
            requireType(param, ParamSpec.CATEGORY_PICKER.equals(param.picker()), ParamType.TEXT, "a category picker");
            requireType(param, ParamSpec.TODAY.equals(param.defaultValue()), ParamType.DATE, "the default today");
        });
        if (params.stream().filter(param -> ParamSpec.WALLET_PICKER.equals(param.picker())).count() > 1) {
            throw new IllegalArgumentException("at most one parameter has the wallet picker (its argument is wallet)");
        }
        Set<String> editable = new LinkedHashSet<>();
        declaration.withArray("editable").forEach(field -> editable.add(known(names, field.asText(), "editable")));
        List<String> ordered = params.stream().map(ParamSpec::name).filter(editable::contains).toList();
        Set<String> byPerson = new LinkedHashSet<>();
        declaration.withArray("personEditable")
                .forEach(field -> byPerson.add(known(names, field.asText(), "personEditable")));
        params.stream().filter(param -> byPerson.contains(param.name())
                && (param.refersTo() != null || param.type() == ParamType.UUID))
                .findFirst().ifPresent(param -> {
                    throw new IllegalArgumentException("personEditable names " + param.name() + ", which refers to a"
                            + " row: an edit may change what an action writes, never which row it writes");
                });
        List<String> byPersonOrdered = params.stream().map(ParamSpec::name).filter(byPerson::contains).toList();
        JsonNode tier = declaration.path("tier");
        only(tier, TIER_MEMBERS, "the tier");
        List<String> highAt = new ArrayList<>();
        tier.withArray("highAtThreshold").forEach(field -> {
            String[] parts = field.asText().split("\\.", 2);
            if (parts.length != 2 || !Set.of("params", "before").contains(parts[0])) {
                throw new IllegalArgumentException("highAtThreshold names params.<name> or before.<name>, not "
                        + field.asText());
            }
            highAt.add(parts[0] + "." + money(params, known(names, parts[1], "highAtThreshold"), "highAtThreshold"));
        });
        BudgetAmount budget = BudgetAmount.NONE;
        if (declaration.has("budgetAmount")) {
            JsonNode amount = declaration.get("budgetAmount");
            only(amount, BUDGET_MEMBERS, "the budget amount");
            budget = new BudgetAmount(
                    money(params, known(names, text(amount, "param"), "budgetAmount"), "budgetAmount"),
                    amount.path("changeFromBefore").asBoolean(false));
        }
        String headline = text(declaration, "headline");
        Headline.placeholders(headline).stream().filter(name -> !Headline.CHANGES.equals(name))
                .forEach(name -> known(names, name, "the headline"));
        String kind = text(declaration, "kind");
        if (kind.length() > 100 || !KIND.matcher(kind).matches()) {
            throw new IllegalArgumentException("kind '" + kind + "' is not <domain>.<noun>.<verb> in lower case");
        }
        if (!TOOL.matcher(text(declaration, "tool")).matches()) {
            throw new IllegalArgumentException("tool '" + text(declaration, "tool") + "' is not a lower-case name");
        }
        return new ActionDefinition(kind, text(declaration, "domain"),
                text(declaration, "label"), text(declaration, "description"), text(declaration, "tool"),
                List.copyOf(params), Collections.unmodifiableSet(new LinkedHashSet<>(ordered)),
                new TierRule(Tier.valueOf(text(tier, "base").toUpperCase(Locale.ROOT)), List.copyOf(highAt)), budget,
                headline, Collections.unmodifiableSet(new LinkedHashSet<>(byPersonOrdered)));
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

    private static void requireType(ParamSpec param, boolean applies, ParamType type, String what) {
        if (applies && param.type() != type) {
            throw new IllegalArgumentException(what + " needs a " + type.name().toLowerCase(Locale.ROOT)
                    + " parameter, not " + param.name());
        }
    }

    /** {@code name}, if it is a money parameter. */
    private static String money(List<ParamSpec> params, String name, String where) {
        if (params.stream().noneMatch(param -> param.name().equals(name) && param.type() == ParamType.MONEY)) {
            throw new IllegalArgumentException(where + " names '" + name + "', which is not a money parameter");
        }
        return name;
    }

    private static String known(Set<String> names, String name, String where) {
        if (!names.contains(name)) {
            throw new IllegalArgumentException(where + " names '" + name + "', which is not a parameter");
        }
        return name;
    }
}
