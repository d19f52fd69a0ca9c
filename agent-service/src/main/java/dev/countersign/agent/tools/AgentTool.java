package dev.countersign.agent.tools;

import dev.countersign.agent.turn.TurnScope;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * A tool the model may call. Its specification is built per turn, so arguments such as a wallet or a category are enums
 * of the tenant's live values. {@link #call} answers with the text the model reads; an argument it cannot accept is
 * thrown as {@link ArgumentRefused}, which the {@link ToolBox} turns into a result naming what is allowed.
 */
public interface AgentTool {

    String name();

    ToolSpecification specification(TurnScope scope);

    String call(ToolArguments arguments, TurnScope scope);
}
