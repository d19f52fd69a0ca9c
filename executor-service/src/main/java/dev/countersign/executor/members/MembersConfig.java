package dev.countersign.executor.members;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** How the executor keeps its list of each tenant's people ({@code tenant_members}). */
@ConfigMapping(prefix = "countersign.members")
public interface MembersConfig {

    /**
     * A person seen again within this time, with the same groups, username and address, is not written again (per
     * instance): what a sign-in costs the database. A change of groups or address is written at once.
     */
    @WithDefault("PT10M")
    Duration rewriteAfter();

    /**
     * A member last seen longer ago than this is not told of actions any more: the longest a person removed from a
     * group at the identity provider may still be told, unless they sign in again.
     */
    @WithDefault("P30D")
    Duration maxAge();
}
