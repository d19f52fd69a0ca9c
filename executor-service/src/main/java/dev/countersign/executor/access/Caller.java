package dev.countersign.executor.access;

import java.util.List;

import jakarta.enterprise.context.RequestScoped;

import dev.countersign.contracts.Tier;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.session.BrowserSessions;
import io.vertx.ext.web.RoutingContext;

/** The caller of an HTTP request as the decision rule sees it: who, and whether through the decision page. */
@RequestScoped
public class Caller {

    private final CurrentUser user;
    private final BrowserSessions sessions;
    private final RoutingContext routing;

    public Caller(CurrentUser user, BrowserSessions sessions, RoutingContext routing) {
        this.user = user;
        this.sessions = sessions;
        this.routing = routing;
    }

    public Principal principal() {
        return Principal.of(user.userId(), user.groups(), user.isService());
    }

    /**
     * What {@code who} may do through {@code via} to an action of {@code tier} {@code requester} asked for, writing a
     * row of {@code owner}: the operations a person's page offers ({@code confirm}, {@code cancel}, {@code undo},
     * {@code resolve}), as the decision rule answers them, whatever the action's status.
     */
    public static List<String> mayDo(Principal who, Channel via, Tier tier, String requester, String owner) {
        return PAGE_OPERATIONS.stream()
                .filter(op -> DecisionRule.decide(who, op, tier, requester, owner, via) == Verdict.ALLOW)
                .map(Operation::tableName).toList();
    }

    private static final List<Operation> PAGE_OPERATIONS = List.of(Operation.CONFIRM, Operation.CANCEL,
            Operation.UNDO, Operation.RESOLVE);

    /** {@link Channel#PAGE} for the decision page's browser session, {@link Channel#HTTP} for a bearer token. */
    public Channel channel() {
        return sessions.isSession(routing) ? Channel.PAGE : Channel.HTTP;
    }
}
