package dev.countersign.agent;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.countersign.agent.evidence.Person;
import dev.countersign.agent.evidence.ReaderGrants;
import dev.countersign.contracts.Audiences;
import dev.countersign.devsupport.testing.TestProperties;

/**
 * For tests that call the agent's readers directly, without an HTTP request: the person signs in as a request would
 * sign them in (a live agent token of theirs, no groups), so a read for them gets a real reader grant.
 */
public final class SignedIn {

    private SignedIn() {
    }

    public static Person as(ReaderGrants grants, String tenantId, String userId) {
        Person person = new Person(tenantId, userId);
        Duration lifetime = Duration.ofMinutes(10);
        grants.signedIn(person, TestProperties.tokens().mint(tenantId, userId, List.of(Audiences.AGENT), List.of(),
                lifetime), Instant.now().plus(lifetime));
        return person;
    }
}
