package dev.countersign.agent.mcp;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.agent.conversation.ConversationKey;
import dev.countersign.agent.evidence.RequestEvidence;
import dev.countersign.agent.ledger.LedgerReader;
import dev.countersign.agent.ledger.TenantFacts;
import dev.countersign.agent.ledger.TenantReads;
import dev.countersign.agent.tools.ToolBox;
import dev.countersign.agent.turn.TurnLimits;
import dev.countersign.agent.turn.TurnScope;
import dev.countersign.agent.ui.UiConfig;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.Problem;
import dev.countersign.contracts.api.ProposalCard;
import dev.countersign.contracts.json.Json;
import dev.countersign.contracts.json.ParamsHash;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
import dev.countersign.web.ProblemMappers;
import io.quarkiverse.mcp.server.JsonRpcErrorCodes;
import io.quarkiverse.mcp.server.McpException;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.ToolManager;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.security.identity.SecurityIdentity;

/**
 * One MCP tool call, answered as the built-in agent answers its model's: by the {@link ToolBox}, in a scope of its own
 * for the signed-in person (a fresh turn id; the conversation is the MCP session's). What differs:
 * <ul>
 * <li>the caller's own MCP token never leaves this service: it is exchanged for evidence ({@link McpEvidence}), which
 * the reads and the proposals carry;</li>
 * <li>the scope is marked as holding text the person did not write, from the start: Countersign cannot see what entered
 * the external agent's context, so its proposals wait for a person like a tainted turn's;</li>
 * <li>each call counts against the same per-person limit as a chat turn, and against its MCP client's own
 * ({@link TurnLimits}).</li>
 * </ul>
 * A refused argument or a failed call is a tool result with {@code isError}; a refused caller (limit, no evidence,
 * database down) is a JSON-RPC error carrying the problem's code.
 */
@ApplicationScoped
public class McpToolCalls {

    /** The taint mark's source, for the log: what the MCP client's context held is unknown here. */
    static final String UNTRUSTED_SOURCE = "the MCP client's context";
    /** Conversation ids of MCP sessions start so; the rest is a digest of the session id. */
    static final String CONVERSATION_PREFIX = "mcp-";

    private final ToolBox tools;
    private final CurrentUser user;
    private final SecurityIdentity identity;
    private final TurnLimits limits;
    private final LedgerReader ledger;
    private final McpEvidence evidence;
    /** The decision page's origin as people reach it (countersign.ui.executor-url); empty: no link is given. */
    private final Optional<String> decisionPage;

    public McpToolCalls(ToolBox tools, CurrentUser user, SecurityIdentity identity, TurnLimits limits,
            LedgerReader ledger, McpEvidence evidence, UiConfig ui) {
        this.decisionPage = ui.executorUrl().filter(url -> !url.isBlank());
        this.tools = tools;
        this.user = user;
        this.identity = identity;
        this.limits = limits;
        this.ledger = ledger;
        this.evidence = evidence;
    }

    ToolResponse call(String tool, ToolManager.ToolArguments arguments) {
        try {
            return answer(tool, arguments);
        } catch (McpException e) {
            throw e;
        } catch (RuntimeException refused) {
            Problem problem = ProblemMappers.problemOf(refused);
            throw new McpException("%s: %s".formatted(problem.code(), problem.detail()), jsonRpcCode(problem));
        }
    }

    /**
     * The JSON-RPC error code of a refused call: the caller's sign-in refused is a security error, a bad request
     * invalid parameters, anything else (a limit, the identity provider or the database unavailable) an internal one;
     * the message starts with the problem's stable code, as the HTTP API's {@code code}.
     */
    static int jsonRpcCode(Problem problem) {
        return switch (problem.status()) {
            case 401, 403 -> JsonRpcErrorCodes.SECURITY_ERROR;
            case 400 -> JsonRpcErrorCodes.INVALID_PARAMS;
            default -> JsonRpcErrorCodes.INTERNAL_ERROR;
        };
    }

    private ToolResponse answer(String tool, ToolManager.ToolArguments arguments) {
        String tenantId = user.tenantId();
        String userId = user.userId();
        ConversationKey conversation = new ConversationKey(tenantId, userId,
                conversationId(arguments.connection().id()));
        try (TurnLimits.Turn running = limits.admit(tenantId, userId)) {
            limits.admitClient(tenantId, mcpClient());
            RequestEvidence proof = evidence.exchange(conversation.person(), callersToken());
            TenantFacts facts = ledger.facts(tenantId, userId).await().atMost(TenantReads.TIMEOUT);
            TurnScope scope = new TurnScope(conversation, proof, UUID.randomUUID(), facts.wallets(),
                    facts.categories());
            scope.readUntrustedText(UNTRUSTED_SOURCE);
            ToolBox.Answer answer = tools.answer(tool, Json.write(arguments.args()), scope);
            if (answer.refused()) {
                return ToolResponse.error(answer.text());
            }
            List<SubmittedAction> submitted = scope.proposals().stream()
                    .map(card -> SubmittedAction.of(card, decisionPage)).toList();
            return submitted.isEmpty()
                    ? ToolResponse.success(answer.text())
                    : new ToolResponse(false, List.of(new TextContent(answer.text())),
                            Map.of("actions", submitted), null);
        } catch (io.smallrye.mutiny.TimeoutException e) {
            throw new ProblemException(ErrorCode.DATABASE_UNAVAILABLE, ("The ledger did not answer within %s; nothing"
                    + " was read or proposed.").formatted(TenantReads.TIMEOUT));
        }
    }

    /**
     * What a propose call submitted, as the MCP client reads it ({@code structuredContent.actions}): the action's id,
     * its summary, {@code submitted} (staged for a person's decision, or on its way to be; an MCP call's proposal never
     * applies on arrival) and where the person decides it. Its outcome: the {@code pending_actions} tool.
     */
    public record SubmittedAction(UUID actionId, String summary, String status, String decisionPage) {

        public static SubmittedAction of(ProposalCard card, Optional<String> decisionPage) {
            return new SubmittedAction(card.actionId(), card.summary(), "submitted",
                    decisionPage.map(base -> base + "/decide/?action=" + card.actionId()).orElse(null));
        }
    }

    /**
     * The MCP client the caller signed in with, as the identity provider issued the token: {@code azp}, else RFC 9068's
     * {@code client_id}; a token naming neither counts in one bucket of its tenant.
     */
    private String mcpClient() {
        if (identity.getPrincipal() instanceof JsonWebToken jwt) {
            for (String claim : List.of("azp", "client_id")) {
                if (jwt.getClaim(claim) instanceof String client) {
                    return "client:" + client;
                }
            }
        }
        return "no client named";
    }

    private String callersToken() {
        AccessTokenCredential token = identity.getCredential(AccessTokenCredential.class);
        return token == null ? null : token.getToken();
    }

    /** {@value #CONVERSATION_PREFIX} and the session id's SHA-256, cut to fit a conversation id (64 characters). */
    static String conversationId(String sessionId) {
        return CONVERSATION_PREFIX + ParamsHash.sha256Hex(sessionId.getBytes(StandardCharsets.UTF_8)).substring(0, 32);
    }
}
