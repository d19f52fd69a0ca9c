package dev.countersign.executor.session;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import dev.countersign.contracts.Groups;
import dev.countersign.contracts.api.DecisionSession;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.session.PageSession;
import io.quarkus.security.Authenticated;

/**
 * {@code GET /api/session}: who is signed in on the decision page, and the CSRF token its changes must carry. Only for
 * the page's browser session ({@link PageSession}).
 */
@Path("/api/session")
@Authenticated
public class SessionResource {

    private final CurrentUser user;
    private final PageSession session;
    private final Optional<String> chatUrl;

    public SessionResource(CurrentUser user, PageSession session,
            @ConfigProperty(name = "countersign.decision-page.chat-url") Optional<String> chatUrl) {
        this.user = user;
        this.session = session;
        this.chatUrl = chatUrl;
    }

    @GET
    public DecisionSession session() {
        String csrfToken = session.csrfToken();
        List<String> groups = Stream.of(Groups.USER, Groups.APPROVER, Groups.ADMIN).filter(user::hasGroup).toList();
        return new DecisionSession(user.tenantId(), user.userId(), groups, csrfToken, session.logoutPath(),
                chatUrl.orElse(null));
    }
}
