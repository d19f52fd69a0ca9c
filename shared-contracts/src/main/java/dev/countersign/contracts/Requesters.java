package dev.countersign.contracts;

/**
 * Who may request an action. A person is named by the {@code sub} of their token. An integration proposing as a service
 * principal is named {@value #SERVICE_PREFIX}{@code <client id>}: the executor records that as the requester and never
 * applies its proposals automatically. The prefix is reserved: a person's token whose subject starts with it is not
 * evidence for a person.
 */
public final class Requesters {

    public static final String SERVICE_PREFIX = "service:";

    private Requesters() {
    }

    public static boolean isService(String requester) {
        return requester != null && requester.startsWith(SERVICE_PREFIX);
    }

    public static String service(String clientId) {
        return SERVICE_PREFIX + clientId;
    }
}
