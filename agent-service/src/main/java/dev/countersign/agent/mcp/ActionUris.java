package dev.countersign.agent.mcp;

import java.util.UUID;

import dev.countersign.agent.tools.ToolArguments;

/** The MCP resource of one action: {@code countersign://actions/<action id>}. */
final class ActionUris {

    static final String ID = "actionId";
    static final String TEMPLATE = "countersign://actions/{" + ID + "}";
    private static final String PREFIX = "countersign://actions/";

    private ActionUris() {
    }

    static String of(UUID actionId) {
        return PREFIX + actionId;
    }

    /** The id a resource URI's {@code actionId} part names, or null when it is not an action id. */
    static UUID idIn(String part) {
        return ToolArguments.uuidOrNull(part);
    }
}
