package dev.countersign.agent.ui;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.web.CurrentUser;
import dev.countersign.web.session.PageSession;
import io.quarkus.security.Authenticated;

/**
 * {@code GET /api/session}: who is signed in to the chat, the CSRF token its changes must carry, and where to sign out.
 * Only for the chat's browser session ({@link PageSession}).
 */
@Path("/api/session")
@Authenticated
public class ChatSessionResource {

    /** The chat's session as its page reads it. */
    public record ChatSession(String tenant, String user, String csrfToken, String logoutPath) {
    }

    private final CurrentUser user;
    private final PageSession session;

    public ChatSessionResource(CurrentUser user, PageSession session) {
        this.user = user;
        this.session = session;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public ChatSession session() {
        return new ChatSession(user.tenantId(), user.userId(), session.csrfToken(), session.logoutPath());
    }
}
