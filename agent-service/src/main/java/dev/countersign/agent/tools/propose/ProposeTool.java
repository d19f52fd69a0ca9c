package dev.countersign.agent.tools.propose;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.agent.tools.AgentTool;
import dev.countersign.agent.tools.ArgumentRefused;
import dev.countersign.agent.tools.Schemas;
import dev.countersign.agent.tools.ToolArguments;
import dev.countersign.agent.turn.TurnScope;
import dev.countersign.contracts.api.ProposalCard;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.contracts.catalogue.ParamSpec;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.contracts.json.Json;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;

/**
 * The tool that proposes one declared kind and does nothing else, generated from its declaration (one per kind, by
 * {@link ProposeTools}): its name is the declaration's {@code tool}, its arguments the kind's parameters as declared
 * (so an edit tool offers exactly the editable fields), a parameter with a picker offered as an enum of the turn's live
 * values (a wallet by its name, a category), one with a default filled in when the model leaves it out. It validates
 * against the catalogue, publishes {@code ActionProposed}, and tells the model the action is staged (or, if the broker
 * is slow, submitted and pending), never done. No tool has a status argument.
 */
public final class ProposeTool implements AgentTool {

    private final ProposalPublisher publisher;
    private final String name;
    private final ActionDefinition definition;

    ProposeTool(ProposalPublisher publisher, ActionDefinition definition) {
        this.publisher = publisher;
        this.name = definition.tool();
        this.definition = definition;
    }

    @Override
    public String name() {
        return name;
    }

    public String kind() {
        return definition.kind();
    }

    /** Whether its kind calls a system outside Countersign (e-mail, a ticket system) when it runs. */
    public boolean reachesOutside() {
        return definition.isExternal();
    }

    /** Fills in the declared defaults of the parameters the model left out ({@code today}: the date). */
    private void addDefaults(ObjectNode params) {
        for (ParamSpec spec : definition.params()) {
            if (ParamSpec.TODAY.equals(spec.defaultValue()) && !params.has(spec.name())) {
                params.put(spec.name(), LocalDate.now().toString());
            }
        }
    }

    /** Whether the model may leave out this required parameter, because {@link #addDefaults} fills it. */
    private static boolean hasDefault(ParamSpec spec) {
        return spec.defaultValue() != null;
    }

    @Override
    public ToolSpecification specification(TurnScope scope) {
        JsonObjectSchema.Builder schema = Schemas.object();
        List<String> required = new ArrayList<>();
        for (ParamSpec spec : definition.params()) {
            String argument = argumentName(spec);
            if (ParamSpec.WALLET_PICKER.equals(spec.picker())) {
                Schemas.wallet(schema, scope, spec.description());
            } else if (ParamSpec.CATEGORY_PICKER.equals(spec.picker())) {
                Schemas.category(schema, spec.name(), scope, spec.description());
            } else {
                schema.addStringProperty(argument, describe(spec));
            }
            if (spec.required() && !hasDefault(spec)) {
                required.add(argument);
            }
        }
        return Schemas.tool(name, definition.description() + (scope.contextClean()
                ? " Stages it; the executor may apply a low-impact one at once (the user can undo it), anything else"
                        + " changes nothing until the user confirms it in the app."
                : " Stages it; it changes nothing until a person confirms it in the app."),
                schema.required(required).build());
    }

    @Override
    public String call(ToolArguments arguments, TurnScope scope) {
        arguments.onlyDeclared(definition.params().stream().map(ProposeTool::argumentName).toList());
        ObjectNode params = Json.mapper().createObjectNode();
        for (ParamSpec spec : definition.params()) {
            if (ParamSpec.WALLET_PICKER.equals(spec.picker())) {
                java.util.UUID wallet = Schemas.walletId(arguments, scope);
                if (wallet != null) {
                    params.put(spec.name(), wallet.toString());
                }
            } else if (ParamSpec.CATEGORY_PICKER.equals(spec.picker())) {
                arguments.oneOf(spec.name(), scope.categories()).ifPresent(c -> params.put(spec.name(), c));
            } else {
                arguments.text(spec.name()).ifPresent(value -> params.put(spec.name(), value));
            }
        }
        addDefaults(params);
        ValidatedParams validated = ActionCatalogue.validate(definition.kind(), params);
        if (!validated.isValid()) {
            throw new ArgumentRefused(refusal(validated.violationsText()));
        }
        return stage(validated, scope);
    }

    private String stage(ValidatedParams validated, TurnScope scope) {
        ProposalPublisher.Submission submission = publisher.submit(scope, validated);
        ProposalCard card = submission.card();
        return switch (submission.outcome()) {
            case ACKNOWLEDGED -> ("Staged action %s for the user's confirmation: %s. It is NOT applied yet: "
                    + (scope.contextClean()
                            ? "the executor decides its tier; a low-impact action (a small expense, a plan draft) may"
                                    + " be applied on arrival and the user can undo it, anything else waits until the"
                                    + " user confirms it in the app,"
                            : "it waits until a person confirms it in the app (unless it came through an MCP client and"
                                    + " the administrators let its kind apply on arrival),")
                    + " and it may expire or be refused. Tell the user it was sent for their approval; never say it is"
                    + " done until a later outcome says so.").formatted(card.actionId(), card.summary());
            case PENDING -> ("Submitted action %s (%s), but the broker has not confirmed receipt yet: its outcome is"
                    + " pending. It is NOT applied. Do not propose it again, in this turn or a later one: it keeps being"
                    + " re-sent as this same action for a while, and the executor stages it at most once. Tell the"
                    + " user it was submitted and should show up in the app for their approval (or be applied, if"
                    + " low-impact) once it arrives, and to wait rather than ask again; never say it failed or that it"
                    + " is done.").formatted(card.actionId(), card.summary());
            case REPEATED -> ("You already proposed exactly this in this turn: action %s (%s). It was not sent"
                    + " again; it is one action. If the user wants a second identical one, they can ask in a new"
                    + " message.").formatted(card.actionId(), card.summary());
            case REFUSED -> ("The message service refused this proposal for good, so it was not staged and nothing"
                    + " changed (%s). Tell the user it could not be submitted; do not propose it again in this turn.")
                    .formatted(card.summary());
        };
    }

    /** A violation as the model knows the parameter: a picked wallet by its argument's name. */
    private String refusal(String violations) {
        String text = violations;
        for (ParamSpec spec : definition.params()) {
            if (ParamSpec.WALLET_PICKER.equals(spec.picker())) {
                text = text.replace(spec.name(), Schemas.WALLET);
            }
        }
        return text;
    }

    private static String argumentName(ParamSpec spec) {
        return ParamSpec.WALLET_PICKER.equals(spec.picker()) ? Schemas.WALLET : spec.name();
    }

    private static String describe(ParamSpec spec) {
        return switch (spec.type()) {
            case UUID -> spec.description() + " A UUID.";
            case MONEY -> spec.description() + " A decimal such as 12.50, as a string.";
            case DATE -> spec.description();
            case TEXT, LINES -> spec.description() + " At most %d characters.".formatted(spec.maxLength());
        };
    }
}
