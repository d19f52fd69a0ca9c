package dev.countersign.agent.tools.read;

import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.actions.ActionReader;
import dev.countersign.agent.tools.AgentTool;
import dev.countersign.agent.tools.ArgumentRefused;
import dev.countersign.agent.tools.Schemas;
import dev.countersign.agent.tools.ToolArguments;
import dev.countersign.agent.turn.TurnScope;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * One of the user's actions by its id, and what became of it: what a proposal's answer points to (and an MCP client's
 * resource {@code countersign://actions/{actionId}} reads). Another tenant's or another person's action reads as
 * missing, exactly as an id nobody used.
 */
@ApplicationScoped
public class ActionStatusTool implements AgentTool {

    static final String ACTION_ID = "actionId";

    private final ActionReader actions;

    public ActionStatusTool(ActionReader actions) {
        this.actions = actions;
    }

    @Override
    public String name() {
        return "action_status";
    }

    @Override
    public ToolSpecification specification(TurnScope scope) {
        return Schemas.tool(name(), "One of the user's proposed actions by its id, and its status now (proposed means"
                + " it still waits for the user's decision; executed means it was written).",
                Schemas.object().addStringProperty(ACTION_ID, "The action's id, as a proposal's answer gave it.")
                        .required(ACTION_ID).build());
    }

    @Override
    public String call(ToolArguments arguments, TurnScope scope) {
        arguments.onlyDeclared(List.of(ACTION_ID));
        UUID id = arguments.uuid(ACTION_ID).orElseThrow(() -> new ArgumentRefused(ACTION_ID + " is required"));
        return actions.action(scope.tenantId(), scope.userId(), id).map(line -> {
            ActionLines.read(List.of(line), scope);
            return "Action " + line.text();
        }).orElse("The user has no action " + id + ".");
    }
}
