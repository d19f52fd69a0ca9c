package dev.countersign.agent;

import jakarta.inject.Singleton;

import dev.countersign.agent.tools.AgentTool;
import dev.countersign.agent.tools.Schemas;
import dev.countersign.agent.tools.ToolArguments;
import dev.countersign.agent.turn.TurnScope;
import dev.langchain4j.agent.tool.ToolSpecification;
import io.quarkus.arc.lookup.LookupIfProperty;

/** A tool that always throws, offered only where a test profile sets {@code countersign.test.exploding-tool}. */
@Singleton
@LookupIfProperty(name = "countersign.test.exploding-tool", stringValue = "true")
public class ExplodingTool implements AgentTool {

    static final String NAME = "exploding_tool";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ToolSpecification specification(TurnScope scope) {
        return Schemas.tool(NAME, "Always fails (tests only).", Schemas.object().build());
    }

    @Override
    public String call(ToolArguments arguments, TurnScope scope) {
        throw new IllegalStateException("boom: the test tool failed on purpose");
    }
}
