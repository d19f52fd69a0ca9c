package dev.countersign.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.countersign.agent.evidence.ReaderGrants;
import dev.countersign.agent.ledger.LedgerReader;
import dev.countersign.agent.ledger.TenantReads;
import dev.countersign.contracts.ErrorCode;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.web.ProblemException;
import io.quarkus.test.junit.QuarkusTest;

/** The agent's reader grants: minted at a person's first read, ended in the database when they sign out. */
@QuarkusTest
@AgentTestResources
class ReaderGrantsTest {

    @Inject
    ReaderGrants grants;
    @Inject
    LedgerReader ledger;

    @Test
    void aReadForAPersonNotSignedInIsRefused() throws Exception {
        var fixtures = new AgentFixtures();

        assertThatThrownBy(() -> ledger.wallets(fixtures.tenant, "alice").await().atMost(TenantReads.TIMEOUT))
                .isInstanceOfSatisfying(ProblemException.class,
                        e -> assertThat(e.problem().code()).isEqualTo(ErrorCode.UNAUTHENTICATED.code()));
    }

    @Test
    void signingOutEndsTheGrantInTheDatabaseAndTheNextReadIsRefused() throws Exception {
        var fixtures = new AgentFixtures();
        var alice = SignedIn.as(grants, fixtures.tenant, "alice");
        assertThat(ledger.wallets(fixtures.tenant, "alice").await().atMost(TenantReads.TIMEOUT)).isNotEmpty();

        assertThat(grants.signedOut(alice).await().atMost(Duration.ofSeconds(5))).isTrue();

        try (var owner = TestProperties.ownerConnection();
                var query = owner.prepareStatement(
                        "SELECT count(*) FILTER (WHERE revoked_at IS NULL AND expires_at > now()), count(*)"
                                + " FROM reader_grants WHERE tenant_id = ? AND user_id = 'alice'")) {
            query.setString(1, fixtures.tenant);
            try (var rows = query.executeQuery()) {
                rows.next();
                assertThat(rows.getInt(1)).as("live grants").isZero();
                assertThat(rows.getInt(2)).as("grants minted").isOne();
            }
        }
        assertThatThrownBy(() -> ledger.wallets(fixtures.tenant, "alice").await().atMost(TenantReads.TIMEOUT))
                .isInstanceOf(ProblemException.class);
    }
}
