package dev.countersign.executor.members;

import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import io.smallrye.mutiny.Uni;

/**
 * Writes who signed in ({@link Sighting}) to {@code tenant_members}. The request that showed the person waits for the
 * write when it may change something: not while this instance recorded the same lately
 * ({@link MembersConfig#rewriteAfter()}), nor for a token issued no later than one it recorded or tried (the table
 * keeps the later token's word anyway). A failure is logged, never fails the request, and is tried again with the
 * person's next, newer token.
 */
@ApplicationScoped
public class MemberSightings {

    private static final Logger LOG = Logger.getLogger(MemberSightings.class);
    static final String CHANNEL = "sign-in";

    private final TenantTransactions transactions;
    private final MemberRepository members;
    /** Per tenant and person: what this instance recorded (null if not recorded) from a token issued when. */
    private final Cache<String, Known> known;

    private record Known(Sighting recorded, Instant issuedAt) {
    }

    public MemberSightings(TenantTransactions transactions, MemberRepository members, MembersConfig config) {
        this.transactions = transactions;
        this.members = members;
        this.known = Caffeine.newBuilder().maximumSize(10_000).expireAfterWrite(config.rewriteAfter()).build();
    }

    /** Records {@code sighting}, from a token issued at {@code issuedAt}, unless that can change nothing now. */
    public Uni<Void> seen(Sighting sighting, Instant issuedAt) {
        String person = sighting.tenantId() + "\u0000" + sighting.userId();
        Known last = known.getIfPresent(person);
        if (last != null && (sighting.equals(last.recorded()) || !issuedAt.isAfter(last.issuedAt()))) {
            return Uni.createFrom().voidItem();
        }
        return transactions.run(new Actor(sighting.tenantId(), sighting.userId(), CHANNEL),
                sql -> members.seen(sql, sighting, issuedAt))
                .invoke(recorded -> known.put(person, new Known(recorded ? sighting : null, issuedAt)))
                .onFailure().recoverWithItem(failure -> {
                    known.put(person, new Known(null, issuedAt));
                    LOG.warnf("Could not record that %s of tenant %s signed in (told of actions only once recorded;"
                            + " tried again with a newer token): %s", sighting.userId(), sighting.tenantId(),
                            failure.toString());
                    return false;
                })
                .replaceWithVoid();
    }
}
