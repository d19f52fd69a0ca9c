package dev.countersign.executor.members;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;

/**
 * Writes who signed in ({@link Sighting}) to {@code tenant_members}, in the background: the request that showed the
 * person never waits for it, and a failure is logged and written again at the person's next request. A sighting equal
 * to one this instance wrote within {@link MembersConfig#rewriteAfter()} is not written again.
 */
@ApplicationScoped
public class MemberSightings {

    private static final Logger LOG = Logger.getLogger(MemberSightings.class);
    static final String CHANNEL = "sign-in";

    private final TenantTransactions transactions;
    private final MemberRepository members;
    private final Cache<Sighting, Boolean> written;

    public MemberSightings(TenantTransactions transactions, MemberRepository members, MembersConfig config) {
        this.transactions = transactions;
        this.members = members;
        this.written = Caffeine.newBuilder().maximumSize(10_000).expireAfterWrite(config.rewriteAfter()).build();
    }

    /** Records {@code sighting} unless this instance wrote it lately; returns at once. */
    public void seen(Sighting sighting) {
        if (written.asMap().putIfAbsent(sighting, Boolean.TRUE) != null) {
            return;
        }
        transactions.run(new Actor(sighting.tenantId(), sighting.userId(), CHANNEL),
                sql -> members.seen(sql, sighting))
                .subscribe().with(ignored -> {
                }, failure -> {
                    written.invalidate(sighting);
                    LOG.warnf("Could not record that %s of tenant %s signed in (told of actions only once recorded):"
                            + " %s", sighting.userId(), sighting.tenantId(), failure.toString());
                });
    }
}
