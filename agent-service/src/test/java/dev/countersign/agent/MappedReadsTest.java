package dev.countersign.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.evidence.ReaderGrants;
import dev.countersign.agent.ledger.LedgerReader;
import dev.countersign.agent.ledger.OwnText;
import dev.countersign.agent.ledger.TenantReads;
import dev.countersign.agent.ledger.TenantSessions;
import dev.countersign.agent.ledger.WalletSummary;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The mapped (Hibernate Reactive Panache) reads: row-level security fences them to the tenant their transaction named
 * first, and they return what the native read they replaced returned. The last test prints what one mapped read costs
 * next to that native read (docs/agent-data-access.md); it asserts nothing about time.
 */
@QuarkusTest
@AgentTestResources
class MappedReadsTest {

    /** The wallets read as it was before it was mapped: the yardstick for the cost figure. */
    private static final String NATIVE_WALLETS = """
            SELECT w.id, w.name, w.currency, w.name_action_id IS NULL OR %s AS own_name
            FROM wallets w WHERE w.tenant_id = $1 ORDER BY w.name, w.id"""
            .formatted(OwnText.writtenBy("$2", "w.name_action_id", "w.tenant_id"));

    @Inject
    TenantSessions sessions;
    @Inject
    TenantReads reads;
    @Inject
    LedgerReader ledger;
    @Inject
    ReaderGrants grants;

    @Test
    void aMappedReadWithoutAFilterSeesOnlyTheTenantItsTransactionNamed() throws Exception {
        AgentFixtures alices = new AgentFixtures();
        AgentFixtures others = new AgentFixtures();

        var alice = SignedIn.as(grants, alices.tenant, "alice");

        List<String> tenants = sessions.await(alice, session -> session
                .createSelectionQuery("select w.tenantId from StoredWallet w", String.class).getResultList());
        String named = sessions.await(alice, session -> session
                .createNativeQuery("SELECT current_tenant()", String.class)
                .getSingleResult());

        assertThat(tenants).hasSize(2).containsOnly(alices.tenant).doesNotContain(others.tenant);
        assertThat(named).isEqualTo(alices.tenant);
    }

    @Test
    void theMappedWalletsReadAnswersAsTheNativeReadItReplaced() throws Exception {
        AgentFixtures fixtures = new AgentFixtures();
        SignedIn.as(grants, fixtures.tenant, "alice");

        assertThat(ledger.wallets(fixtures.tenant, "alice").await().atMost(TenantReads.TIMEOUT))
                .isEqualTo(nativeWallets(fixtures.tenant, "alice")).hasSize(2);
    }

    @Test
    void printsTheCostOfOneMappedReadNextToTheNativeRead() throws Exception {
        AgentFixtures fixtures = new AgentFixtures();
        SignedIn.as(grants, fixtures.tenant, "alice");
        Supplier<Object> mapped = () -> ledger.wallets(fixtures.tenant, "alice").await().atMost(TenantReads.TIMEOUT);
        Supplier<Object> nativeRead = () -> nativeWallets(fixtures.tenant, "alice");
        Supplier<Object> mappedFacts = () -> ledger.facts(fixtures.tenant, "alice").await()
                .atMost(TenantReads.TIMEOUT);

        for (int round = 0; round < 2; round++) { // the first round warms both paths up
            String nativeFigure = timed(nativeRead);
            String mappedFigure = timed(mapped);
            String factsFigure = timed(mappedFacts);
            if (round == 1) {
                System.out.printf("[agent-data-access] wallets read, native: %s%n", nativeFigure);
                System.out.printf("[agent-data-access] wallets read, Panache: %s%n", mappedFigure);
                System.out.printf("[agent-data-access] per-turn facts (wallets + categories), Panache: %s%n",
                        factsFigure);
            }
        }
    }

    private List<WalletSummary> nativeWallets(String tenant, String user) {
        return reads.list(new Person(tenant, user), NATIVE_WALLETS, Tuple.of(tenant, user),
                row -> new WalletSummary(row.getUUID("id"), row.getString("name"), row.getString("currency"),
                        row.getBoolean("own_name")));
    }

    /** Median and 95th percentile of 200 sequential reads, in microseconds. */
    private static String timed(Supplier<Object> read) {
        List<Long> micros = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            long start = System.nanoTime();
            read.get();
            micros.add((System.nanoTime() - start) / 1000);
        }
        Collections.sort(micros);
        return "median %d us, p95 %d us (200 sequential reads)".formatted(micros.get(100), micros.get(190));
    }
}
