package dev.countersign.agent.tools.read;

import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.tools.AgentTool;
import dev.countersign.agent.tools.Schemas;
import dev.countersign.agent.tools.ToolArguments;
import dev.countersign.agent.turn.TurnScope;
import dev.langchain4j.agent.tool.ToolSpecification;

/** The tenant's wallets, as read when the turn started. */
@ApplicationScoped
public class ListWalletsTool implements AgentTool {

    @Override
    public String name() {
        return "list_wallets";
    }

    @Override
    public ToolSpecification specification(TurnScope scope) {
        return Schemas.tool(name(), "List the user's wallets with their currency.", Schemas.object().build());
    }

    @Override
    public String call(ToolArguments arguments, TurnScope scope) {
        arguments.onlyDeclared(java.util.List.of());
        if (scope.wallets().isEmpty()) {
            return "The user has no wallets.";
        }
        return scope.wallets().stream()
                .map(w -> "- %s (%s), id %s".formatted(scope.labelOf(w.id()), w.currency(), w.id()))
                .collect(Collectors.joining("\n", "Wallets:\n", ""));
    }
}
