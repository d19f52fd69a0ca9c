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

    /** Every tool, by name: the built-in agent's and the MCP server's are these same ones. */
    public List<AgentTool> tools() {
        return List.copyOf(tools.values());
    }

    public List<String> names() {
        return List.copyOf(tools.keySet());
    }

    /** The result the model reads for one call. */
    public String answer(ToolExecutionRequest call, TurnScope scope) {
        return answer(call.name(), call.arguments(), scope).text();
    }

    /**
     * The answer to one call of {@code name} with {@code arguments} (a JSON object's text, or blank for none), whoever
     * calls: the built-in agent's model or an MCP client.
     */
    public Answer answer(String name, String arguments, TurnScope scope) {
        AgentTool tool = tools.get(name);
        if (tool == null) {
            return Answer.refused(UNKNOWN_TOOL.formatted(name, String.join(", ", tools.keySet())));
        }
        ObjectNode parsed = parse(arguments);
        if (parsed == null) {
            return Answer.refused(MALFORMED.formatted(name));
        }
        try {
            return new Answer(tool.call(new ToolArguments(parsed), scope), false);
        } catch (ArgumentRefused e) {
            return Answer.refused(REFUSED.formatted(e.getMessage(), name));
        } catch (RuntimeException e) {
            LOG.warnf("Tool %s failed in turn %s: %s", name, scope.turnId(), e.toString());
            return Answer.refused(FAILED.formatted(name));
        }
    }

    /** What a call answered, and whether nothing was done by it (refused, malformed, failed: an error to MCP). */
    public record Answer(String text, boolean refused) {

        static Answer refused(String text) {
            return new Answer(text, true);
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
