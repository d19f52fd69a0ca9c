package dev.countersign.contracts;

/**
 * Bearer token audiences. Each service accepts only tokens issued for it, so the token a person gives agent-service
 * (which also sees the confirm tokens it mints) cannot confirm anything on executor-service.
 */
public final class Audiences {

    public static final String AGENT = "countersign-agent";
    public static final String EXECUTOR = "countersign-executor";
    /**
     * Client-credentials tokens of integrations that propose as a service principal (not a person): accepted only as
     * proposal evidence on Kafka, never by an HTTP endpoint.
     */
    public static final String INTEGRATION = "countersign-integration";

    /** Access tokens an MCP client gets for agent-service's MCP server (its own audience; docs/mcp.md). */
    public static final String MCP = "countersign-mcp";
    /**
     * Evidence of an MCP call: an MCP token exchanged at the identity provider for the executor, which learns from this
     * audience that the request came through MCP. Never accepted by an HTTP endpoint.
     */
    public static final String MCP_EVIDENCE = "countersign-mcp-evidence";

    private Audiences() {
    }
}
