package dev.countersign.agent.tools;

import dev.countersign.agent.turn.TurnScope;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;

/** The argument shapes tools share, built from the turn's live data. */
public final class Schemas {

    public static final String WALLET = "wallet";
    public static final String CATEGORY = "category";

    private Schemas() {
    }

    public static JsonObjectSchema.Builder object() {
        return JsonObjectSchema.builder().additionalProperties(false);
    }

    public static JsonObjectSchema.Builder wallet(JsonObjectSchema.Builder schema, TurnScope scope,
            String description) {
        if (scope.listing()) {
            return schema.addStringProperty(WALLET, description + " A wallet's label as list_wallets shows it.");
        }
        return scope.walletLabels().isEmpty()
                ? schema.addStringProperty(WALLET, description + " The user has no wallets.")
                : schema.addEnumProperty(WALLET, scope.walletLabels(), description);
    }

    public static JsonObjectSchema.Builder category(JsonObjectSchema.Builder schema, TurnScope scope,
            String description) {
        return category(schema, CATEGORY, scope, description);
    }

    /** A category picked from the turn's categories, as the argument {@code name}. */
    public static JsonObjectSchema.Builder category(JsonObjectSchema.Builder schema, String name, TurnScope scope,
            String description) {
        if (scope.listing()) {
            return schema.addStringProperty(name, description + " One of the user's spending categories.");
        }
        return schema.addEnumProperty(name, scope.categories(), description);
    }

    public static JsonObjectSchema.Builder date(JsonObjectSchema.Builder schema, String name, String description) {
        return schema.addStringProperty(name, description + " As yyyy-MM-dd.");
    }

    public static ToolSpecification tool(String name, String description, JsonObjectSchema parameters) {
        return ToolSpecification.builder().name(name).description(description).parameters(parameters).build();
    }

    /** The wallet the model picked from the turn's enum, or null if it named none. */
    public static java.util.UUID walletId(ToolArguments arguments, TurnScope scope) {
        return arguments.oneOf(WALLET, scope.walletLabels()).map(label -> scope.walletLabelled(label).id())
                .orElse(null);
    }
}
