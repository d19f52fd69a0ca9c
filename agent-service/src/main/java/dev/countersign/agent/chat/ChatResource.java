package dev.countersign.agent.chat;

import java.util.regex.Pattern;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ChatReply;
import dev.countersign.contracts.api.ChatRequest;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;

/** {@code POST /api/conversations/{id}/messages}: one turn. Blocking on a worker thread while the model thinks. */
@Path("/api/conversations")
@Authenticated
public class ChatResource {

    private static final Pattern CONVERSATION_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final ChatService chat;
    private final CurrentUser user;

    public ChatResource(ChatService chat, CurrentUser user) {
        this.chat = chat;
        this.user = user;
    }

    @POST
    @Path("/{id}/messages")
    @Consumes(MediaType.APPLICATION_JSON)
    public ChatReply send(@PathParam("id") String conversationId, ChatRequest request) {
        if (!CONVERSATION_ID.matcher(conversationId).matches()) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "A conversation id is 1 to 64 letters, digits, '-' or '_'.");
        }
        if (request == null || request.text() == null || request.text().isBlank()
                || request.text().length() > ChatRequest.MAX_LENGTH) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "Send {\"text\": \"...\"} with 1 to %d characters.".formatted(ChatRequest.MAX_LENGTH));
        }
        return chat.turn(user.tenantId(), user.userId(), conversationId, request.text());
    }
}
