package dev.countersign.agent.planmode;

import java.time.Duration;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** How a person's run of a drafted statement is bounded. */
@ConfigMapping(prefix = "countersign.plan")
public interface PlanConfig {

    /** PostgreSQL's statement_timeout for the run (set for its transaction only). */
    @WithDefault("PT5S")
    @DurationMin(millis = 1)
    Duration runTimeout();

    @WithDefault("50")
    @Min(1)
    int defaultPageSize();

    @WithDefault("200")
    @Min(1)
    int maxPageSize();

    /** Rows beyond this many (from the first) cannot be paged to. */
    @WithDefault("1000")
    @Min(1)
    int maxRows();

    /** A value longer than this many characters is cut, by PostgreSQL, before it is sent. */
    @WithDefault("1000")
    @Min(1)
    int maxCellChars();

    /** A statement with more output columns than this is not run. */
    @WithDefault("50")
    @Min(1)
    int maxColumns();

    /** Characters of cell text one run reads at most; the rows after that are left out and the result says so. */
    @WithDefault("1000000")
    @Min(1)
    int maxResultChars();

    /** Rows read from the cursor per round trip. */
    @WithDefault("50")
    @Min(1)
    int fetchSize();

    /** PostgreSQL's work_mem for the run's sorts and hashes (set for its transaction only). */
    @WithDefault("4MB")
    @Pattern(regexp = "[1-9][0-9]{0,6}(kB|MB|GB)", message = "must be PostgreSQL memory such as 4MB (kB, MB or GB)")
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
    @Min(1)
    int maxConcurrentRuns();
}
