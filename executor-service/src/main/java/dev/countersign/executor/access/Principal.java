package dev.countersign.executor.access;

import java.util.Set;

import dev.countersign.contracts.Groups;

/**
 * Who asks, as this service verified it: a person (with the {@code approver} and {@code admin} groups of their token)
 * or a service principal (a client-credentials token of an integration), which is never a person.
 */
public record Principal(String userId, boolean approver, boolean admin, boolean service) {

    /**
     * The one approver every topic decision without a verified person counts as, whatever user id it names (the
     * consumer cannot see which Kafka principal wrote a record, so all unverified integrations together are one).
     */
    public static final String UNVERIFIED_INTEGRATION = "integration:unverified";

    public static Principal person(String userId, boolean approver, boolean admin) {
        return new Principal(userId, approver, admin, false);
    }

    /**
     * A verified token's principal: its subject, its {@code approver} and {@code admin} groups, whether a service's.
     */
    public static Principal of(String userId, Set<String> groups, boolean service) {
        return new Principal(userId, groups.contains(Groups.APPROVER), groups.contains(Groups.ADMIN), service);
    }
}
