package dev.countersign.agent.turn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.countersign.agent.AgentTestResources;
import dev.countersign.web.ProblemException;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The MCP client's own limit beside each person's (countersign.limits.calls-per-client): one client's calls in a tenant
 * are counted together, and a client at its limit leaves other clients, and the same client in other tenants, alone.
 */
@QuarkusTest
@AgentTestResources
class TurnLimitsTest {

    @Inject
    TurnLimits limits;

    @Inject
    TurnLimitsConfig config;

    @Test
    void aClientBeyondItsCallsInTheWindowIsRefusedWhileAnotherClientIsNot() {
        String client = "desktop-agent-" + UUID.randomUUID();
        for (int call = 0; call < config.callsPerClient(); call++) {
            limits.admitClient("t-one", client);
        }

        assertThatThrownBy(() -> limits.admitClient("t-one", client)).isInstanceOfSatisfying(ProblemException.class,
                refused -> {
                    assertThat(refused.problem().code()).isEqualTo("rate_limited");
                    assertThat(refused.retryAfter()).hasValueSatisfying(wait -> assertThat(wait).isPositive());
                });
        limits.admitClient("t-one", "ide-agent-" + UUID.randomUUID());
        // The same client in another tenant has its own allowance: no tenant's callers use up another's.
        limits.admitClient("t-two", client);
    }
}
