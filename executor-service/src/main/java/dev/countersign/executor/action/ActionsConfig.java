package dev.countersign.executor.action;

import java.math.BigDecimal;
import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "countersign.actions")
public interface ActionsConfig {

    /** The longest a proposal may wait for a decision; a proposal may ask for less, never for more. */
    @WithDefault("PT15M")
    Duration maxTtl();

    /**
     * How often undecided actions whose window has closed are expired and announced. Read by the schedule of
     * {@code ExpirySweeper} (quarkus-scheduler, which ticks once a second: at least PT1S).
     */
    @WithDefault("PT5S")
    Duration sweepInterval();

    /** The most actions one sweep transaction expires. */
    @WithDefault("500")
    int sweepBatch();

    /**
     * Agent writes of a tenant whose administrator never set them: {@code enabled} (LOW actions, and MEDIUM ones of a
     * user who earned trust, apply on arrival), {@code staged_only} (every action waits for a person) or
     * {@code disabled} (proposals are rejected until an administrator enables them).
     */
    @WithDefault("enabled")
    String agentWritesDefault();

    /**
     * How many MEDIUM actions of one user a person must confirm in a row before that user's MEDIUM actions apply on
     * arrival.
     */
    @WithDefault("10")
    int trustAfter();

    /** How long after it ran an executed action can still be undone. */
    @WithDefault("PT24H")
    Duration undoWindow();

    /**
     * The auto-apply budget of a tenant whose administrator never set one (see {@code AutoApplyBudget}): small on
     * purpose, since nobody looks at what it lets through before it is written.
     */
    AutoApplyBudgetDefaults autoApplyBudget();

    interface AutoApplyBudgetDefaults {

        @WithDefault("5")
        int turnCount();

        @WithDefault("200.00")
        BigDecimal turnAmount();

        @WithDefault("20")
        int userDayCount();

        @WithDefault("500.00")
        BigDecimal userDayAmount();

        @WithDefault("200")
        int tenantDayCount();

        @WithDefault("5000.00")
        BigDecimal tenantDayAmount();
    }
}
