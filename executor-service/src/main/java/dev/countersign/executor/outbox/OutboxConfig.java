package dev.countersign.executor.outbox;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

import jakarta.validation.constraints.Min;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "countersign.outbox")
public interface OutboxConfig {

    /**
     * How often the relay looks for rows nobody woke it for (another instance's, or left by a failed run). Read by the
     * schedule of {@link OutboxRelay#poll()} (quarkus-scheduler; at least 100 ms); declared here so it is validated and
     * documented with the relay's other settings.
     */
    @WithDefault("PT1S")
    @DurationMin(millis = 100)
    Duration pollInterval();

    /** Rows published per relay transaction. */
    @WithDefault("200")
    @Min(1)
    int batchSize();

    /**
     * Tenants whose outcomes are also published to their own topic ({@code countersign.tenant.<id>.outcomes}), which
     * only that tenant's integration principal may read (deploy/k8s/base/kafka-users.yaml). Empty: none.
     */
    Optional<Set<String>> tenantOutcomeTopics();
}
