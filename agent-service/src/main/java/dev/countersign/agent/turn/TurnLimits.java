package dev.countersign.agent.turn;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

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

    private final TurnLimitsConfig config;
    private final Cache<String, Person> people;

    public TurnLimits(TurnLimitsConfig config) {
        this.config = config;
        // A person unseen for a whole window has a full allowance again: forgetting them loses nothing (a turn still
        // running keeps its own permit, released into the forgotten record).
        this.people = Caffeine.newBuilder().maximumSize(PEOPLE).expireAfterAccess(config.turnsWindow()).build();
    }

    /**
     * Counts a turn of this person and holds one of their running places until the answer is {@link Turn#close()
     * closed}, or refuses it (429): when they already have {@link TurnLimitsConfig#turnsInFlightPerPerson()} turns
     * running (nothing counted), or started their limit within the window.
     */
    public Turn admit(String tenantId, String userId) {
        Person person = people.get(tenantId + "\u0000" + userId, key -> new Person(Guard.create().withRateLimit()
                .limit(config.turnsPerPerson()).window(config.turnsWindow().toMillis(), ChronoUnit.MILLIS)
                .type(RateLimitType.ROLLING).done().build(), new Semaphore(config.turnsInFlightPerPerson())));
        if (!person.running().tryAcquire()) {
            throw new ProblemException(ErrorCode.RATE_LIMITED, ("You already have %d conversation turns running, the"
                    + " most one person may; nothing was run. Try again when one has answered.")
                    .formatted(config.turnsInFlightPerPerson()), BUSY_RETRY_AFTER);
        }
        try {
            person.started().get(() -> Boolean.TRUE, Boolean.class);
        } catch (RateLimitException refused) {
            person.running().release();
            throw new ProblemException(ErrorCode.RATE_LIMITED, ("You started %d conversation turns within %d"
                    + " seconds, the most one person may; nothing was run. Try again in %d seconds.").formatted(
                            config.turnsPerPerson(), config.turnsWindow().toSeconds(),
                            Math.max(1, (refused.getRetryAfterMillis() + 999) / 1000)),
                    Duration.ofMillis(refused.getRetryAfterMillis()));
        }
        return new Turn(person.running());
    }

    private record Person(Guard started, Semaphore running) {
    }

    /** A running turn's place; closing it (once, however often it is called) frees the place. */
    public static final class Turn implements AutoCloseable {

        private final Semaphore running;
        private final AtomicBoolean closed = new AtomicBoolean();

        Turn(Semaphore running) {
            this.running = running;
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                running.release();
            }
        }
    }
}
