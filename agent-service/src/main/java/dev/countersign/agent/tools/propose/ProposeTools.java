package dev.countersign.agent.tools.propose;

import java.util.List;

import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import dev.countersign.agent.tools.AgentTool;
import dev.countersign.contracts.catalogue.ActionCatalogue;

/**
 * One propose tool per declared kind ({@link ProposeTool}), generated from the catalogue: no kind has code in the
 * agent. An external kind (it leaves the system) is offered only where {@code countersign.tools.external-writes=true}:
 * executor-service carries such a kind out only where its vendor is configured and otherwise rejects it at staging
 * ({@code kind_not_supported}), so by default the model is not offered a tool whose card could never be confirmed; set
 * it where the executor's vendors are.
 */
@Singleton
public class ProposeTools {

    private final List<AgentTool> offered;

    public ProposeTools(ProposalPublisher publisher,
            @ConfigProperty(name = "countersign.tools.external-writes", defaultValue = "false") boolean externalWrites) {
        this.offered = ActionCatalogue.all().stream()
                .filter(definition -> externalWrites || !definition.isExternal())
                .map(definition -> (AgentTool) new ProposeTool(publisher, definition)).toList();
    }

    /** The propose tools the model is offered here. */
    public List<AgentTool> offered() {
        return offered;
    }

}
