package dev.countersign.executor.action;

import java.math.BigDecimal;
import java.time.Duration;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;

import org.hibernate.validator.constraints.time.DurationMin;

import dev.countersign.contracts.api.AutoApplyBudget;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "countersign.actions")
public interface ActionsConfig {

    /** The longest a proposal may wait for a decision; a proposal may ask for less, never for more. */
    @WithDefault("PT15M")
    @DurationMin(seconds = 1)
    Duration maxTtl();

    /**
     * How often undecided actions whose window has closed are expired and announced. Read by the schedule of
     * {@code ExpirySweeper} (quarkus-scheduler; at least 100 ms).
     */
    @WithDefault("PT5S")
    @DurationMin(millis = 100)
    Duration sweepInterval();

    /** The most actions one sweep transaction expires. */
    @WithDefault("500")
    @Min(1)
    int sweepBatch();

    /**
     * Agent writes of a tenant whose administrator never set them: {@code enabled} (LOW actions, and MEDIUM ones of a
     * user who earned trust, apply on arrival), {@code staged_only} (every action waits for a person) or
     * {@code disabled} (proposals are rejected until an administrator enables them).
     */
    @WithDefault("enabled")
    @Pattern(regexp = "(?i)enabled|staged_only|disabled")
    String agentWritesDefault();

    /**
     * How many MEDIUM actions of one user a person must confirm in a row before that user's MEDIUM actions apply on
     * arrival.
     */
    @WithDefault("10")
    @Min(1)
    int trustAfter();

    /** How long after it ran an executed action can still be undone. */
    @WithDefault("PT24H")
    @DurationMin(seconds = 0)
    Duration undoWindow();

    /**
     * The auto-apply budget of a tenant whose administrator never set one (see {@code AutoApplyBudget}): small on
     * purpose, since nobody looks at what it lets through before it is written.
     */
    AutoApplyBudgetDefaults autoApplyBudget();

    interface AutoApplyBudgetDefaults {

        @WithDefault("5")
        @AutoApplyBudget.Count
        int turnCount();

        @WithDefault("200.00")
        @AutoApplyBudget.Amount
        BigDecimal turnAmount();

        @WithDefault("20")
        @AutoApplyBudget.Count
        int userDayCount();

        @WithDefault("500.00")
        @AutoApplyBudget.Amount
        BigDecimal userDayAmount();

        @WithDefault("200")
        @AutoApplyBudget.Count
        int tenantDayCount();

        @WithDefault("5000.00")
        @AutoApplyBudget.Amount
        BigDecimal tenantDayAmount();
    }
}
