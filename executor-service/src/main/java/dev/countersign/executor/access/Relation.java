package dev.countersign.executor.access;

/**
 * How the principal stands to what it decides: whether it asked for it (the action's requester, the rows' importer),
 * and whether it owns the row the action writes (the wallet's owner, the plan's person). A target nobody owns (a
 * support case, a ticket: the tenant's) counts as the requester's own.
 */
public enum Relation {

    REQUESTER_AND_OWNER("requester+owner"), REQUESTER("requester"), OWNER("owner"), NEITHER("neither");

    private final String tableName;

    Relation(String tableName) {
        this.tableName = tableName;
    }

    public String tableName() {
        return tableName;
    }

    /**
     * How {@code userId} stands to an action {@code requester} asked for, writing a row of {@code owner} (or nobody).
     */
    public static Relation of(String userId, String requester, String owner) {
        boolean requested = userId.equals(requester);
        boolean owns = owner == null ? requested : userId.equals(owner);
        if (requested) {
            return owns ? REQUESTER_AND_OWNER : REQUESTER;
        }
        return owns ? OWNER : NEITHER;
    }
}
