package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import dev.countersign.devsupport.testing.TopicRecords;
import dev.countersign.executor.action.ActionReads;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.db.TenantSessions;
import dev.countersign.executor.db.TenantTransactions;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;

/**
 * The cost of the ORM on the action read (docs/adr/0004-panache-and-native-sql.md): one action read by id in its
 * tenant's transaction, through Panache ({@link ActionReads}, what GET /api/actions/{id} uses) and through the native
 * statement the confirm path still uses ({@link ActionRepository#find}). Prints the figures; asserts only that both
 * read the same row (times on a shared two-core machine are no test).
 */
@QuarkusTest
@ExecutorTestResources
class ActionReadCostTest {

    /** The suite's few reads show the figures; ADR 4's come from {@code -Dcountersign.readcost.rounds=1000}. */
    private static final int WARM_UP = Integer.getInteger("countersign.readcost.warmup", 30);
    private static final int ROUNDS = Integer.getInteger("countersign.readcost.rounds", 100);

    private final TopicRecords kafka = TopicRecords.fromTestProperties();
    private final TenantSessions sessions;
    private final TenantTransactions transactions;
    private final ActionReads reads;
    private final ActionRepository actions;

    ActionReadCostTest(TenantSessions sessions, TenantTransactions transactions, ActionReads reads,
            ActionRepository actions) {
        this.sessions = sessions;
        this.transactions = transactions;
        this.reads = reads;
        this.actions = actions;
    }

    @Test
    void panacheAndNativeReadTheSameActionAndTheirCostIsPrinted() throws Exception {
        TestTenant tenant = TestTenant.withCheckingWallet();
        var staged = ProposalMother.staged(kafka, tenant, "12.50");
        Supplier<Uni<ActionRow>> viaPanache = () -> sessions.read(tenant.id(),
                () -> reads.find(staged.actionId, tenant.id()));
        Supplier<Uni<ActionRow>> viaNative = () -> transactions.read(tenant.id(),
                sql -> actions.find(sql, staged.actionId, tenant.id()));

        ActionRow panache = Sessions.await(viaPanache);
        assertThat(panache).isNotNull().isEqualTo(Sessions.await(viaNative));

        for (int i = 0; i < WARM_UP; i++) {
            Sessions.await(viaPanache);
            Sessions.await(viaNative);
        }
        long[] panacheNanos = new long[ROUNDS];
        long[] nativeNanos = new long[ROUNDS];
        for (int i = 0; i < ROUNDS; i++) {
            // Alternating, so a burst of load on the machine hits both alike.
            panacheNanos[i] = time(viaPanache);
            nativeNanos[i] = time(viaNative);
        }
        System.out.printf("ActionReadCost: %d sequential reads each, after %d warm-up;"
                + " panache %s; native %s%n", ROUNDS, WARM_UP, summary(panacheNanos), summary(nativeNanos));
    }

    private static long time(Supplier<Uni<ActionRow>> read) {
        long start = System.nanoTime();
        Sessions.await(read);
        return System.nanoTime() - start;
    }

    private static String summary(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return "median %d us, p90 %d us, p99 %d us".formatted(sorted[sorted.length / 2] / 1000,
                sorted[sorted.length * 9 / 10] / 1000, sorted[sorted.length * 99 / 100] / 1000);
    }
}
