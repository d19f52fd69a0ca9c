package dev.countersign.agent.brief;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.evidence.ReaderGrants;

/**
 * Who in a tenant gets the scheduled brief: the people of the tenant signed in to this instance with a live token. The
 * agent's roles read a tenant only for such a person (a reader grant minted from their token), so it can neither list
 * nor brief anybody else: a user who has not signed in recently gets no scheduled brief from this instance.
 */
@ApplicationScoped
public class BriefRecipients {

    private final ReaderGrants grants;

    public BriefRecipients(ReaderGrants grants) {
        this.grants = grants;
    }

    /** At most {@code max} users, in id order. */
    public List<String> users(String tenantId, int max) {
        return grants.signedIn(tenantId).stream().limit(max).toList();
    }
}
