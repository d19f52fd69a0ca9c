package dev.countersign.agent.mcp;

import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import dev.countersign.agent.tools.AgentTool;
import dev.countersign.agent.tools.ToolBox;
import dev.countersign.agent.tools.propose.ProposeTool;
import dev.countersign.agent.turn.TurnScope;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.internal.JsonSchemaElementUtils;
import io.quarkiverse.mcp.server.MetaKey;
import io.quarkiverse.mcp.server.ResourceTemplateManager;
import io.quarkiverse.mcp.server.ToolManager;
import io.quarkiverse.mcp.server.ToolManager.ToolAnnotations;
import io.quarkus.runtime.StartupEvent;

/**
 * The MCP server's tools: every tool of the {@link ToolBox}, the built-in agent's own read and propose tools, offered
 * to any MCP client under the same names and rules (no second list). Their input schemas are those of
 * {@link TurnScope#forListing()}: a wallet or category is a string, checked against the caller's live values when the
 * tool is called, since one list of tools serves every person.
 * <p>
 * A propose tool is annotated as a write (not read-only, not idempotent) and says in its description and in
 * {@value #APPROVAL_KEY} that a person approves it on the decision page before anything is written. MCP annotations are
 * hints a client may ignore; the gate is the executor's, not the client's.
 */
@ApplicationScoped
public class McpTools {

    /** A tool definition's {@code _meta} entry: {@code required} for a propose tool, {@code none} for a read. */
    static final String APPROVAL_KEY = "dev.countersign/approval";

    static final String APPROVAL_NOTE = " It only proposes: nothing is written until a person approves it on"
            + " Countersign's decision page (unless the person's administrators let this kind apply on arrival from"
            + " MCP clients, within their limits); the answer gives the action's id, its status and the page's link,"
            + " and action_status (or the action's resource) its outcome.";

    private static final ToolAnnotations READ = new ToolAnnotations(null, true, false, true, false);
    private static final ToolAnnotations PROPOSAL = new ToolAnnotations(null, false, true, false, false);
    /** A proposal whose kind, once approved, calls a system outside Countersign (e-mail, a ticket system). */
    private static final ToolAnnotations OUTSIDE_PROPOSAL = new ToolAnnotations(null, false, true, false, true);

    private final ToolManager manager;
    private final ResourceTemplateManager resources;
    private final ToolBox toolBox;
    private final McpToolCalls calls;

    public McpTools(ToolManager manager, ResourceTemplateManager resources, ToolBox toolBox, McpToolCalls calls) {
        this.manager = manager;
        this.resources = resources;
        this.toolBox = toolBox;
        this.calls = calls;
    }

    void register(@Observes StartupEvent start) {
        for (AgentTool tool : toolBox.tools()) {
            ToolSpecification specification = tool.specification(TurnScope.forListing());
            boolean proposes = tool instanceof ProposeTool;
            ToolAnnotations hints = tool instanceof ProposeTool propose
                    ? (propose.reachesOutside() ? OUTSIDE_PROPOSAL : PROPOSAL)
                    : READ;
            manager.newTool(tool.name())
                    .setDescription(specification.description() + (proposes ? APPROVAL_NOTE : ""))
                    .setInputSchema(JsonSchemaElementUtils.toMap(specification.parameters()))
                    .setAnnotations(hints)
                    .setMetadata(Map.of(MetaKey.from(APPROVAL_KEY), proposes ? "required" : "none"))
                    .setHandler(arguments -> calls.call(tool.name(), arguments))
                    .register();
        }
        resources.newResourceTemplate("action")
                .setTitle("A proposed action")
                .setDescription("One of your proposed actions and its status now: proposed (waiting for a person's"
                        + " decision), executed, cancelled, expired or failed. A propose tool's answer names it.")
                .setUriTemplate(ActionUris.TEMPLATE)
                .setMimeType("text/plain")
                .setHandler(calls::readAction)
                .register();
    }
}
