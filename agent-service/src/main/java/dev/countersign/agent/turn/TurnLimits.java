package dev.countersign.agent.turn;

import java.time.temporal.ChronoUnit;

import jakarta.enterprise.context.ApplicationScoped;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.web.ProblemException;
import io.smallrye.faulttolerance.api.Guard;
import io.smallrye.faulttolerance.api.RateLimitException;
import io.smallrye.faulttolerance.api.RateLimitType;

/**
 * A per-person limit on chat turns, as each turn may drive several rounds of paid model calls: at most
 * {@link TurnLimitsConfig#turnsPerPerson()} turns in any {@link TurnLimitsConfig#turnsWindow()} (a rolling window), one
 * more answered 429 {@code rate_limited} with {@code Retry-After}, before anything runs. One SmallRye Fault Tolerance
 * rate limit per person, kept while it is used.
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

    private final TurnLimitsConfig config;
    private final Cache<String, Guard> people;

    public TurnLimits(TurnLimitsConfig config) {
        this.config = config;
        // A person unseen for a whole window has a full allowance again: forgetting them loses nothing.
        this.people = Caffeine.newBuilder().maximumSize(PEOPLE).expireAfterAccess(config.turnsWindow()).build();
    }

    /** Counts a turn of this person, or refuses it (429) when they reached their limit. */
    public void admit(String tenantId, String userId) {
        Guard guard = people.get(tenantId + "\u0000" + userId, person -> Guard.create().withRateLimit()
                .limit(config.turnsPerPerson()).window(config.turnsWindow().toMillis(), ChronoUnit.MILLIS)
                .type(RateLimitType.ROLLING).done().build());
        try {
            guard.get(() -> Boolean.TRUE, Boolean.class);
        } catch (RateLimitException refused) {
            throw new ProblemException(ErrorCode.RATE_LIMITED, ("You started %d conversation turns within %d"
                    + " seconds, the most one person may; nothing was run. Try again in %d seconds.").formatted(
                            config.turnsPerPerson(), config.turnsWindow().toSeconds(),
                            Math.max(1, (refused.getRetryAfterMillis() + 999) / 1000)),
                    java.time.Duration.ofMillis(refused.getRetryAfterMillis()));
        }
    }
}
