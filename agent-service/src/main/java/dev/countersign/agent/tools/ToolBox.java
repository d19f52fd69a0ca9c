package dev.countersign.agent.tools;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.agent.tools.propose.ProposeTools;
import dev.countersign.agent.turn.TurnScope;
import dev.countersign.contracts.json.Json;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * Every tool the model is offered, and the one place a tool call is answered. Whatever happens, the model gets a result
 * for each call and the turn goes on: an unknown tool, malformed arguments, a refused argument or a tool that throws
 * each become a result that says nothing was done by that call.
 */
@ApplicationScoped
public class ToolBox {

    static final String UNKNOWN_TOOL = "No such tool \"%s\"; nothing was done. The tools you have are: %s.";
    static final String MALFORMED = "The arguments of %s were not a JSON object; nothing was done. Call it again with"
            + " a JSON object matching its parameters.";
    static final String REFUSED = "Refused, nothing was done: %s. Fix the argument and call %s again, or ask the user.";
    static final String FAILED = "The tool %s failed for a technical reason; nothing was done by this call. Do not"
            + " claim it succeeded: tell the user it did not work and that they can try again.";

    private static final Logger LOG = Logger.getLogger(ToolBox.class);

    private final Map<String, AgentTool> tools = new LinkedHashMap<>();

    public ToolBox(Instance<AgentTool> all, ProposeTools proposeTools) {
        java.util.stream.Stream.concat(all.stream(), proposeTools.offered().stream())
                .sorted(java.util.Comparator.comparing(AgentTool::name)).forEach(tool -> {
                    if (tools.put(tool.name(), tool) != null) {
                        throw new IllegalStateException("Two tools named " + tool.name());
                    }
                });
    }

    public List<ToolSpecification> specifications(TurnScope scope) {
        return tools.values().stream().map(tool -> tool.specification(scope)).toList();
    }

    public List<String> names() {
        return List.copyOf(tools.keySet());
    }

    /** The result the model reads for one call. */
    public String answer(ToolExecutionRequest call, TurnScope scope) {
        AgentTool tool = tools.get(call.name());
        if (tool == null) {
            return UNKNOWN_TOOL.formatted(call.name(), String.join(", ", tools.keySet()));
        }
        ObjectNode arguments = parse(call.arguments());
        if (arguments == null) {
            return MALFORMED.formatted(call.name());
        }
        try {
            return tool.call(new ToolArguments(arguments), scope);
        } catch (ArgumentRefused e) {
            return REFUSED.formatted(e.getMessage(), call.name());
        } catch (RuntimeException e) {
            LOG.warnf("Tool %s failed in turn %s: %s", call.name(), scope.turnId(), e.toString());
            return FAILED.formatted(call.name());
        }
    }

    private static ObjectNode parse(String arguments) {
        if (arguments == null || arguments.isBlank()) {
            return Json.mapper().createObjectNode();
        }
        try {
            JsonNode node = Json.mapper().readTree(arguments);
            return node instanceof ObjectNode object ? object : null;
        } catch (java.io.IOException e) {
            return null;
        }
    }
}
