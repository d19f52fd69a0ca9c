package dev.countersign.agent.turn;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.Deque;

import jakarta.enterprise.context.ApplicationScoped;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.web.ProblemException;
import io.smallrye.faulttolerance.api.Guard;
import io.smallrye.faulttolerance.api.RateLimitException;
import io.smallrye.faulttolerance.api.RateLimitType;

/**
 * Per-person limits on chat turns, as each turn may drive several rounds of paid model calls: at most
 * {@link TurnLimitsConfig#turnsPerPerson()} turns in any {@link TurnLimitsConfig#turnsWindow()} (a rolling window, one
 * SmallRye Fault Tolerance rate limit per person) and at most {@link TurnLimitsConfig#turnsInFlightPerPerson()} running
 * at once (so one person cannot fill the model's bulkhead or the breaker's window with slow calls of their own); one
 * more is answered 429 {@code rate_limited} with {@code Retry-After}, before anything runs.
 * <p>
 * Limits: it holds <b>per instance</b>: with n agent replicas behind a load balancer that spreads a person's requests,
 * that person may start up to n times the limit. A person is a user id of a tenant, as the token names them: one human
 * with two accounts has two limits. Only a turn a request starts counts (a request refused before it, as bad input,
 * does not); the daily brief is not a person's turn. At most {@value #PEOPLE} people are tracked at once: beyond that
 * the least recently seen are forgotten, and start again with a full allowance.
 */
@ApplicationScoped
public class TurnLimits {

    static final int PEOPLE = 100_000;
    /** What a refusal for turns already running says to wait: about one model answer. */
    static final Duration BUSY_RETRY_AFTER = Duration.ofSeconds(5);
    /** Beyond the turn's wall clock: a tool call that started in time, and recording the turn (docs/agent.md). */
    static final Duration AFTER_THE_WALL_CLOCK = Duration.ofSeconds(15);

    private final TurnLimitsConfig config;
    private final Duration longestTurn;
    private final Cache<String, Person> people;
    private final Cache<String, Guard> clients;

    public TurnLimits(TurnLimitsConfig config, TurnConfig turns) {
        this.config = config;
        this.longestTurn = turns.wallClock().plus(AFTER_THE_WALL_CLOCK);
        // Forgotten only when unseen for longer than both the window and the longest turn: by then neither a start
        // nor a running place of theirs still counts, so forgetting them loses nothing.
        Duration unseen = config.turnsWindow().compareTo(longestTurn) > 0 ? config.turnsWindow() : longestTurn;
        this.people = Caffeine.newBuilder().maximumSize(PEOPLE).expireAfterAccess(unseen).build();
        this.clients = Caffeine.newBuilder().maximumSize(PEOPLE).expireAfterAccess(config.turnsWindow()).build();
    }

    /**
     * Counts a turn of this person and holds one of their running places until the turn is {@link Turn#close() closed}
     * or the longest a turn can last has passed (a place whose closing never came, as a stream a client left before it
     * started, frees itself then), or refuses it (429): when they already have
     * {@link TurnLimitsConfig#turnsInFlightPerPerson()} turns running (nothing counted), or started their limit within
     * the window.
     */
    public Turn admit(String tenantId, String userId) {
        Person person = people.get(tenantId + "\u0000" + userId,
                key -> new Person(rollingLimit(config.turnsPerPerson()),
                        new ArrayDeque<>()));
        Turn turn = new Turn(Instant.now().plus(longestTurn));
        synchronized (person) {
            person.running().removeIf(Turn::isOver);
            if (person.running().size() >= config.turnsInFlightPerPerson()) {
                throw new ProblemException(ErrorCode.RATE_LIMITED, ("You already have %d conversation turns running,"
                        + " the most one person may; nothing was run. Try again when one has answered.")
                        .formatted(config.turnsInFlightPerPerson()), BUSY_RETRY_AFTER);
            }
            try {
                person.started().get(() -> Boolean.TRUE, Boolean.class);
            } catch (RateLimitException refused) {
                throw new ProblemException(ErrorCode.RATE_LIMITED, ("You started %d conversation turns within %d"
                        + " seconds, the most one person may; nothing was run. Try again in %d seconds.").formatted(
                                config.turnsPerPerson(), config.turnsWindow().toSeconds(),
                                ProblemException.wholeSeconds(Duration.ofMillis(refused.getRetryAfterMillis()))),
                        Duration.ofMillis(refused.getRetryAfterMillis()));
            }
            person.running().add(turn);
        }
        return turn;
    }

    /**
     * Counts one MCP tool call of the MCP client {@code clientId} (its {@code azp}) in {@code tenantId}, or refuses it
     * (429) when that client made {@link TurnLimitsConfig#callsPerClient()} within the window for that tenant, whoever
     * of the tenant signed in with it. Called after the person's own {@link #admit} let the call in, so a person held
     * at their limit spends none of the client's allowance; keyed by tenant, so no tenant's callers use up another's.
     */
    public void admitClient(String tenantId, String clientId) {
        Guard started = clients.get(tenantId + "\u0000" + clientId,
                key -> rollingLimit(config.callsPerClient()));
        try {
            started.get(() -> Boolean.TRUE, Boolean.class);
        } catch (RateLimitException refused) {
            Duration wait = Duration.ofMillis(refused.getRetryAfterMillis());
            throw new ProblemException(ErrorCode.RATE_LIMITED, ("This MCP client made %d calls within %d seconds, the"
                    + " most one client may; nothing was run. Try again in %d seconds.").formatted(
                            config.callsPerClient(), config.turnsWindow().toSeconds(),
                            ProblemException.wholeSeconds(wait)),
                    wait);
        }
    }

    /** At most {@code limit} starts within any {@link TurnLimitsConfig#turnsWindow()} (SmallRye's rolling window). */
    private Guard rollingLimit(int limit) {
        return Guard.create().withRateLimit().limit(limit).window(config.turnsWindow().toMillis(), ChronoUnit.MILLIS)
                .type(RateLimitType.ROLLING).done().build();
    }

    private record Person(Guard started, Deque<Turn> running) {
    }

    /** A running turn's place: held until closed (once, however often it is called) or until its deadline. */
    public static final class Turn implements AutoCloseable {

        private final Instant deadline;
        private volatile boolean closed;

        Turn(Instant deadline) {
            this.deadline = deadline;
        }

        boolean isOver() {
            return closed || Instant.now().isAfter(deadline);
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
