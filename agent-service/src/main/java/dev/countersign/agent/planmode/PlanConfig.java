package dev.countersign.agent.planmode;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** How a person's run of a drafted statement is bounded. */
@ConfigMapping(prefix = "countersign.plan")
public interface PlanConfig {

    /** PostgreSQL's statement_timeout for the run (set for its transaction only). */
    @WithDefault("PT5S")
    Duration runTimeout();

    @WithDefault("50")
    int defaultPageSize();

    @WithDefault("200")
    int maxPageSize();

    /** Rows beyond this many (from the first) cannot be paged to. */
    @WithDefault("1000")
    int maxRows();

    /** A value longer than this many characters is cut, by PostgreSQL, before it is sent. */
    @WithDefault("1000")
    int maxCellChars();

    /** A statement with more output columns than this is not run. */
    @WithDefault("50")
    int maxColumns();

    /** Characters of cell text one run reads at most; the rows after that are left out and the result says so. */
    @WithDefault("1000000")
    int maxResultChars();

    /** Rows read from the cursor per round trip. */
    @WithDefault("50")
    int fetchSize();

    /** PostgreSQL's work_mem for the run's sorts and hashes (set for its transaction only). */
    @WithDefault("4MB")
    String workMem();

    /**
     * The relations plan mode lists and runs over: tenant-wide data only. Row-level security separates tenants, not the
     * users of one tenant, so per-user tables (conversations, actions, plans) are never offered. A name ending in
     * {@code *} matches a prefix.
     */
    @WithDefault("wallets,transactions")
    java.util.List<String> relations();

    /** Plan runs at once on this instance; more are refused (503) instead of queueing on the reader pool. */
    @WithDefault("4")
    int maxConcurrentRuns();
}
