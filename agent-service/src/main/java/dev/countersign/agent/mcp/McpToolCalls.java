package dev.countersign.agent.mcp;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.countersign.agent.actions.ActionReader;
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
import io.quarkiverse.mcp.server.ResourceResponse;
import io.quarkiverse.mcp.server.ResourceTemplateManager;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.TextResourceContents;
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
 * the external agent's context, so its proposals wait for a person like a tainted turn's (the executor applies them on
 * arrival only for a kind the tenant opted in);</li>
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
    private final ActionReader actions;
    /** The decision page's origin as people reach it (countersign.ui.executor-url); empty: no link is given. */
    private final Optional<String> decisionPage;

    public McpToolCalls(ToolBox tools, CurrentUser user, SecurityIdentity identity, TurnLimits limits,
            LedgerReader ledger, McpEvidence evidence, ActionReader actions, UiConfig ui) {
        this.decisionPage = ui.executorUrl().filter(url -> !url.isBlank());
        this.tools = tools;
        this.user = user;
        this.identity = identity;
        this.limits = limits;
        this.ledger = ledger;
        this.evidence = evidence;
        this.actions = actions;
    }

    ToolResponse call(String tool, ToolManager.ToolArguments arguments) {
        return asPerson(arguments.connection().id(), scope -> answer(tool, arguments, scope));
    }

    /**
     * The resource {@code countersign://actions/<id>}: one of the caller's actions, as {@code action_status} tells it.
     * Another tenant's or person's action, or an id that is none, is "resource not found", alike.
     */
    ResourceResponse readAction(ResourceTemplateManager.ResourceTemplateArguments arguments) {
        String uri = arguments.requestUri().value();
        return asPerson(arguments.connection().id(), scope -> {
            UUID id = ActionUris.idIn(arguments.args().get(ActionUris.ID));
            ActionReader.ActionLine line = id == null
                    ? null
                    : actions.action(scope.tenantId(), scope.userId(), id).orElse(null);
            if (line == null) {
                throw new McpException("Resource not found: " + uri, JsonRpcErrorCodes.RESOURCE_NOT_FOUND);
            }
            return new ResourceResponse(new TextResourceContents(uri, "Action " + line.text(), "text/plain"));
        });
    }

    /**
     * Runs {@code work} for the signed-in person in a scope of its own, admitted by the limits, with the evidence the
     * MCP token was exchanged for; a refusal becomes the JSON-RPC error carrying the problem's code.
     */
    private <T> T asPerson(String connectionId, Function<TurnScope, T> work) {
        try {
            String tenantId = user.tenantId();
            String userId = user.userId();
            ConversationKey conversation = new ConversationKey(tenantId, userId, conversationId(connectionId));
            try (TurnLimits.Turn running = limits.admit(tenantId, userId)) {
                limits.admitClient(tenantId, mcpClient());
                RequestEvidence proof = evidence.exchange(conversation.person(), callersToken());
                TenantFacts facts = ledger.facts(tenantId, userId).await().atMost(TenantReads.TIMEOUT);
                TurnScope scope = new TurnScope(conversation, proof, UUID.randomUUID(), facts.wallets(),
                        facts.categories());
                scope.readUntrustedText(UNTRUSTED_SOURCE);
                return work.apply(scope);
            } catch (io.smallrye.mutiny.TimeoutException e) {
                throw new ProblemException(ErrorCode.DATABASE_UNAVAILABLE, ("The ledger did not answer within %s;"
                        + " nothing was read or proposed.").formatted(TenantReads.TIMEOUT));
            }
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

    private ToolResponse answer(String tool, ToolManager.ToolArguments arguments, TurnScope scope) {
        ToolBox.Answer answer = tools.answer(tool, Json.write(arguments.args()), scope);
        if (answer.refused()) {
            return ToolResponse.error(answer.text());
        }
        List<SubmittedAction> submitted = scope.proposals().stream()
                .map(card -> SubmittedAction.of(card, decisionPage)).toList();
        return submitted.isEmpty()
                ? ToolResponse.success(answer.text())
                : new ToolResponse(false, List.of(new TextContent(answer.text())), Map.of("actions", submitted),
                        null);
    }

    /**
     * What a propose call submitted, as the MCP client reads it ({@code structuredContent.actions}): the action's id,
     * its summary, {@code submitted} (staged for a person's decision, or on its way to be; an MCP call's proposal never
     * applies on arrival), where the person decides it and the resource that tells its outcome (as the
     * {@code action_status} tool does).
     */
    public record SubmittedAction(UUID actionId, String summary, String status, String decisionPage,
            String resource) {

        public static SubmittedAction of(ProposalCard card, Optional<String> decisionPage) {
            return new SubmittedAction(card.actionId(), card.summary(), "submitted",
                    decisionPage.map(base -> base + "/decide/?action=" + card.actionId()).orElse(null),
                    ActionUris.of(card.actionId()));
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
