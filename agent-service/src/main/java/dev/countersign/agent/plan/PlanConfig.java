package dev.countersign.agent.plan;

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

    /** A value longer than this many characters is cut. */
    @WithDefault("1000")
    int maxCellChars();
}
