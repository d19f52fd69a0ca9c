package dev.countersign.agent.chat;

import java.net.URI;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;

import dev.countersign.agent.act.ActTurn;
import dev.countersign.agent.act.TurnListener;
import dev.countersign.agent.conversation.ConversationKey;
import dev.countersign.agent.conversation.ConversationLedger;
import dev.countersign.agent.evidence.RequestEvidence;
import dev.countersign.agent.planmode.PlanTurn;
import dev.countersign.agent.turn.TurnLimits;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.Identifiers;
import dev.countersign.contracts.api.ChatReply;
import dev.countersign.contracts.api.ChatRequest;
import dev.countersign.contracts.api.ConversationView;
import dev.countersign.contracts.api.ProposalCard;
import dev.countersign.contracts.events.TurnRecorded;
import dev.countersign.contracts.json.Json;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
import dev.countersign.web.ProblemMappers;
import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.security.Authenticated;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.infrastructure.Infrastructure;

/**
 * Conversations of the calling user. A turn blocks a worker thread while the model thinks; the streamed variant sends
 * progress as server-sent events ({@code tool}, {@code proposal}, then {@code reply} with the whole {@link ChatReply},
 * or {@code problem}). The model's answer itself is not streamed token by token: the reply event carries it whole. A
 * person's turns are limited ({@link TurnLimits}: 429 {@code rate_limited} before anything runs).
 */
@Path("/api/conversations")
@Authenticated
public class ConversationResource {

    /** The answer to a request without a body; the record's constraints (ChatRequest) answer the rest. */
    static final String BODY = "must be \\{\"text\": \"...\"\\} with 1 to " + ChatRequest.MAX_LENGTH + " characters";

    private final ActTurn actTurns;
    private final PlanTurn planTurns;
    private final ConversationLedger ledger;
    private final CurrentUser user;
    private final SecurityIdentity identity;
    private final TurnLimits limits;

    public ConversationResource(ActTurn actTurns, PlanTurn planTurns, ConversationLedger ledger, CurrentUser user,
            SecurityIdentity identity, TurnLimits limits) {
        this.limits = limits;
        this.actTurns = actTurns;
        this.planTurns = planTurns;
        this.ledger = ledger;
        this.user = user;
        this.identity = identity;
    }

    /** A new conversation id. Nothing is stored until its first turn. */
    @POST
    @Produces(MediaType.APPLICATION_JSON)
    public Response create() {
        String id = "c-" + UUID.randomUUID();
        return Response.created(URI.create("/api/conversations/" + id))
                .entity(new ConversationView(id, List.of())).build();
    }

    @GET
    @Path("/{id}")
    @Produces(MediaType.APPLICATION_JSON)
    public ConversationView get(@PathParam("id") String conversationId) {
        List<TurnRecorded> recorded = ledger.turns(key(conversationId), ConversationView.MAX_TURNS);
        if (recorded.isEmpty()) {
            throw new ProblemException(ErrorCode.NOT_FOUND, "You have no conversation with this id.");
        }
        return new ConversationView(conversationId, recorded);
    }

    @POST
    @Path("/{id}/messages")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Object send(@PathParam("id") String conversationId,
            @NotNull(message = BODY) @Valid ChatRequest request) {
        ConversationKey conversation = key(conversationId);
        RequestEvidence evidence = evidence();
        String text = request.text();
        try (TurnLimits.Turn running = limits.admit(user.tenantId(), user.userId())) {
            return plan(request)
                    ? planTurns.run(conversation, evidence, text)
                    : actTurns.run(conversation, evidence, text, TurnListener.NONE);
        }
    }

    @POST
    @Path("/{id}/messages")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.SERVER_SENT_EVENTS)
    public Multi<OutboundSseEvent> stream(@PathParam("id") String conversationId,
            @NotNull(message = BODY) @Valid ChatRequest request, @Context Sse sse) {
        // The caller and the request are checked here, before the stream starts, so bad input is a 4xx problem; the
        // turn runs on a worker, and what fails during it arrives as a problem event.
        ConversationKey conversation = key(conversationId);
        // Read on the request's thread: the turn runs on a worker, outside the request.
        RequestEvidence evidence = evidence();
        String text = request.text();
        boolean plan = plan(request);
        // Its place is freed when the turn ends, not when a client leaves the stream (the turn goes on); a stream left
        // before its turn started frees it and never starts the turn; one never started frees it at its deadline.
        TurnLimits.Turn running = limits.admit(user.tenantId(), user.userId());
        AtomicBoolean taken = new AtomicBoolean();
        return Multi.createFrom().<OutboundSseEvent>emitter(events -> {
            if (!taken.compareAndSet(false, true)) {
                return; // the client left before the turn started
            }
            TurnListener progress = new TurnListener() {

                @Override
                public void toolAnswered(String tool) {
                    events.emit(event(sse, "tool", Json.mapper().createObjectNode().put("tool", tool)));
                }

                @Override
                public void proposed(ProposalCard card) {
                    events.emit(event(sse, "proposal", card));
                }
            };
            try {
                events.emit(event(sse, "reply", plan
                        ? planTurns.run(conversation, evidence, text)
                        : actTurns.run(conversation, evidence, text, progress)));
            } catch (RuntimeException e) {
                events.emit(event(sse, "problem", ProblemMappers.problemOf(e)));
            } finally {
                running.close();
            }
            events.complete();
        }).runSubscriptionOn(Infrastructure.getDefaultWorkerPool()).onTermination().invoke(() -> {
            if (taken.compareAndSet(false, true)) {
                running.close();
            }
        });
    }

    private static OutboundSseEvent event(Sse sse, String name, Object data) {
        return sse.newEventBuilder().name(name).mediaType(MediaType.APPLICATION_JSON_TYPE).data(Json.write(data))
                .build();
    }

    /**
     * The caller's own access token for this service, forwarded as evidence with what the turn publishes: the bearer
     * token of the request, or the access token the chat's session holds (never its ID token). None: the executor
     * rejects what the turn publishes.
     */
    private RequestEvidence evidence() {
        AccessTokenCredential accessToken = identity.getCredential(AccessTokenCredential.class);
        return RequestEvidence.of(accessToken == null ? null : accessToken.getToken());
    }

    ConversationKey key(String conversationId) {
        return key(user, conversationId);
    }

    static ConversationKey key(CurrentUser user, String conversationId) {
        if (!Identifiers.isConversationId(conversationId)) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "A conversation id is 1 to 64 letters, digits, '-' or '_'.");
        }
        return new ConversationKey(user.tenantId(), user.userId(), conversationId);
    }

    private static boolean plan(ChatRequest request) {
        return ChatRequest.PLAN.equals(request.mode());
    }
}
