package dev.countersign.devsupport.testing;

/** The MCP server's answers as tests read them. */
public final class McpAnswers {

    private McpAnswers() {
    }

    /**
     * The JSON-RPC message of a Streamable HTTP answer, which the server sends either as JSON or as one server-sent
     * event ({@code data:} lines).
     */
    public static String json(String body) {
        return body.startsWith("{")
                ? body
                : body.lines().filter(line -> line.startsWith("data:")).map(line -> line.substring(5).trim())
                        .reduce("", String::concat);
    }
}
