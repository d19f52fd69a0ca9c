package dev.countersign.agent.brief;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import jakarta.validation.constraints.Min;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "countersign.brief")
public interface BriefConfig {

    /**
     * When the scheduled brief runs: a Quartz cron expression (seconds first) in the server's time zone, or {@code off}
     * for never. Read by the scheduler itself ({@link BriefSchedule}); declared here so the property is documented.
     */
    @WithDefault("0 0 7 * * ?")
    String cron();

    /**
     * The tenants whose users get the scheduled brief. The reader role cannot list tenants (row-level security shows it
     * only the tenant a transaction names), so they are configured; none configured, no scheduled briefs.
     */
    Optional<List<String>> tenants();

    /** The window of a user's first brief (or one whose last brief is older than the look-back). */
    @WithDefault("PT24H")
    @DurationMin(seconds = 1)
    Duration firstWindow();

    /** At most this many users of one tenant get a scheduled brief per run (the rest are logged). */
    @WithDefault("1000")
    @Min(1)
    int maxUsersPerTenant();
}
