package dev.countersign.agent.evidence;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.TenantIsolation;
import dev.countersign.contracts.api.ReaderGrant;
import dev.countersign.web.ProblemException;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The reader grants this instance holds, one per signed-in person: the only tenant context the agent's database roles
 * have (R__current_tenant.sql). A person's latest verified access token is remembered as they sign in or call
 * ({@link SignedInPeople}); a read for them uses their live grant, or first asks the executor to mint one from that
 * token ({@link ReaderGrantClient}). Without a live token there is no grant, and the read is refused: the agent cannot
 * read for a person who is not signed in to it.
 * <p>
 * Limits: tokens and grants live in this process's memory until they expire (the grant at most
 * {@code countersign.reader-grants.max-lifetime} of the executor, 15 minutes by default) or the person signs out of the
 * chat ({@link SignOuts}); whoever controls the process may use them until then. An expired entry is dropped when the
 * maps pass {@value #PRUNE_ABOVE} entries.
 */
@ApplicationScoped
public class ReaderGrants {

    static final int PRUNE_ABOVE = 10_000;

    private record Token(String raw, Instant expiresAt) {
    }

    private final Map<Person, Token> tokens = new ConcurrentHashMap<>();
    private final Map<Person, ReaderGrant> grants = new ConcurrentHashMap<>();
    private final ReaderGrantClient client;
    private final ReaderGrantsConfig config;
    private final Pool pool;

    public ReaderGrants(ReaderGrantClient client, ReaderGrantsConfig config, Pool pool) {
        this.client = client;
        this.config = config;
        this.pool = pool;
    }

    /**
     * {@code person} signed out: their token is forgotten and this instance's grant of theirs ended in the database
     * ({@code revoke_reader_grant}). Limit: grants other replicas hold for them live out their lifetime.
     */
    public Uni<Boolean> signedOut(Person person) {
        tokens.remove(person);
        ReaderGrant grant = grants.remove(person);
        if (grant == null || !grant.expiresAt().isAfter(Instant.now())) {
            return Uni.createFrom().item(false);
        }
        return pool.withTransaction(sql -> sql.preparedQuery("SELECT " + TenantIsolation.useGrant("$1"))
                .execute(Tuple.of(grant.secret()))
                .flatMap(named -> sql.query("SELECT revoke_reader_grant() AS ended").execute())
                .map(rows -> rows.iterator().next().getBoolean("ended")));
    }

    /** {@code person} presented {@code token}, verified by this service, valid until {@code expiresAt}. */
    public void signedIn(Person person, String token, Instant expiresAt) {
        Token known = tokens.get(person);
        if (known == null || !known.raw().equals(token)) {
            tokens.put(person, new Token(token, expiresAt));
        }
        if (tokens.size() > PRUNE_ABOVE || grants.size() > PRUNE_ABOVE) {
            Instant now = Instant.now();
            tokens.values().removeIf(t -> !t.expiresAt().isAfter(now));
            grants.values().removeIf(g -> !g.expiresAt().isAfter(now));
        }
    }

    /** The people of {@code tenantId} signed in to this instance with a token still live, in id order. */
    public List<String> signedIn(String tenantId) {
        Instant now = Instant.now();
        return tokens.entrySet().stream()
                .filter(e -> e.getKey().tenantId().equals(tenantId) && e.getValue().expiresAt().isAfter(now))
                .map(e -> e.getKey().userId()).sorted().toList();
    }

    /** The secret of {@code person}'s live grant, minted first if it is missing or about to end. */
    public Uni<String> secretFor(Person person) {
        Instant now = Instant.now();
        ReaderGrant grant = grants.get(person);
        if (grant != null && grant.expiresAt().isAfter(now.plus(config.renewBefore()))) {
            return Uni.createFrom().item(grant.secret());
        }
        Token token = tokens.get(person);
        boolean grantLive = grant != null && grant.expiresAt().isAfter(now);
        if (token == null || !token.expiresAt().isAfter(now)) {
            return grantLive
                    ? Uni.createFrom().item(grant.secret())
                    : Uni.createFrom().failure(new ProblemException(ErrorCode.UNAUTHENTICATED,
                            "You are not signed in to the assistant (or your sign-in expired): sign in again."));
        }
        return client.mint(person, token.raw())
                .invoke(minted -> grants.put(person, minted))
                .map(ReaderGrant::secret)
                .onFailure().recoverWithUni(failure -> grantLive
                        ? Uni.createFrom().item(grant.secret())
                        : Uni.createFrom().failure(failure));
    }
}
