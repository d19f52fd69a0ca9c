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
 * write the first time, then not again on this instance while the person's token says the same (for
 * {@link MembersConfig#rewriteAfter()}); a failure is logged and the write tried again at their next request, and never
 * fails the request. A token issued before the one recorded changes nothing (the table keeps the later one's word).
 */
@ApplicationScoped
public class MemberSightings {

    private static final Logger LOG = Logger.getLogger(MemberSightings.class);
    static final String CHANNEL = "sign-in";

    private final TenantTransactions transactions;
    private final MemberRepository members;
    /** The sighting last recorded per tenant and person, by this instance. */
    private final Cache<String, Sighting> written;

    public MemberSightings(TenantTransactions transactions, MemberRepository members, MembersConfig config) {
        this.transactions = transactions;
        this.members = members;
        this.written = Caffeine.newBuilder().maximumSize(10_000).expireAfterWrite(config.rewriteAfter()).build();
    }

    /** Records {@code sighting}, from a token issued at {@code issuedAt}, unless this instance did lately. */
    public Uni<Void> seen(Sighting sighting, Instant issuedAt) {
        String person = sighting.tenantId() + "\u0000" + sighting.userId();
        if (sighting.equals(written.getIfPresent(person))) {
            return Uni.createFrom().voidItem();
        }
        return transactions.run(new Actor(sighting.tenantId(), sighting.userId(), CHANNEL),
                sql -> members.seen(sql, sighting, issuedAt))
                .invoke(recorded -> {
                    if (recorded) {
                        written.put(person, sighting);
                    }
                })
                .onFailure().recoverWithItem(failure -> {
                    LOG.warnf("Could not record that %s of tenant %s signed in (told of actions only once recorded):"
                            + " %s", sighting.userId(), sighting.tenantId(), failure.toString());
                    return false;
                })
                .replaceWithVoid();
    }
}
