package dev.countersign.agent.tools.read;

import java.util.List;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.actions.ActionReader;
import dev.countersign.agent.actions.ActionReader.ActionLine;
import dev.countersign.agent.tools.AgentTool;
import dev.countersign.agent.tools.Schemas;
import dev.countersign.agent.tools.ToolArguments;
import dev.countersign.agent.turn.TurnScope;
import dev.langchain4j.agent.tool.ToolSpecification;

/** The user's proposed actions and what became of them. */
@ApplicationScoped
public class PendingActionsTool implements AgentTool {

    private final ActionReader actions;

    public PendingActionsTool(ActionReader actions) {
        this.actions = actions;
    }

    @Override
    public String name() {
        return "pending_actions";
    }

    @Override
    public ToolSpecification specification(TurnScope scope) {
        return Schemas.tool(name(), "The user's proposed actions and their status (proposed means it still waits"
                + " for the user's decision).",
                Schemas.object()
                        .addBooleanProperty("pendingOnly", "Only those still waiting; false or omitted for all recent.")
                        .build());
    }

    @Override
    public String call(ToolArguments arguments, TurnScope scope) {
        arguments.onlyDeclared(List.of("pendingOnly"));
        boolean pendingOnly = arguments.oneOf("pendingOnly", List.of("true", "false")).map(Boolean::parseBoolean)
                .orElse(false);
        List<ActionLine> found = actions.actions(scope.tenantId(), scope.userId(), pendingOnly);
        ActionLines.read(found, scope);
        if (found.isEmpty()) {
            return pendingOnly ? "Nothing waits for the user's decision." : "The user has no actions yet.";
        }
        return found.stream().map(line -> "- " + line.text()).collect(Collectors.joining("\n", "Actions:\n", ""));
    }
}
