package dev.countersign.executor.access;

/**
 * Who asks, as this service verified it: a person (with the {@code approver} and {@code admin} groups of their token)
 * or a service principal (a client-credentials token of an integration), which is never a person.
 */
public record Principal(String userId, boolean approver, boolean admin, boolean service) {

    public static Principal person(String userId, boolean approver, boolean admin) {
        return new Principal(userId, approver, admin, false);
    }
}
