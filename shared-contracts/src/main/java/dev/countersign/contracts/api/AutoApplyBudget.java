package dev.countersign.contracts.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.math.BigDecimal;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import jakarta.validation.ReportAsSingleViolation;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/**
 * How much the tier rules may apply without a person (LOW actions on arrival, MEDIUM ones of a user who earned trust,
 * plan drafts): at most {@code *Count} actions and {@code *Amount} in money per chat turn, per user in any 24 hours and
 * per tenant in any 24 hours. An edit counts by the size of its change, a rename or a plan by count only. An action
 * beyond any bound is staged for a person with the reason. Amounts add up across currencies by face value.
 * <p>
 * The per-turn bound rests on the turn id the agent sends, so it holds for an honest agent only; the 24-hour bounds are
 * what limit a compromised one.
 */
public record AutoApplyBudget(
        @AutoApplyBudget.Count Integer turnCount,
        @AutoApplyBudget.Amount BigDecimal turnAmount,
        @AutoApplyBudget.Count Integer userDayCount,
        @AutoApplyBudget.Amount BigDecimal userDayAmount,
        @AutoApplyBudget.Count Integer tenantDayCount,
        @AutoApplyBudget.Amount BigDecimal tenantDayAmount) {

    /** The largest count an administrator may set. */
    public static final int MAX_COUNT = 100_000;
    /** The largest amount an administrator may set, as {@link DecimalMax} reads it. */
    public static final String MAX_AMOUNT = "1000000000";

    /** A count of actions: 0 (none applies without a person) to {@link #MAX_COUNT}. */
    @NotNull
    @Min(0)
    @Max(MAX_COUNT)
    @ReportAsSingleViolation
    @Constraint(validatedBy = {})
    @Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER})
    @Retention(RetentionPolicy.RUNTIME)
    @Documented
    public @interface Count {

        String message() default "must be a count from 0 to " + MAX_COUNT;

        Class<?>[] groups() default {};

        Class<? extends Payload>[] payload() default {};
    }

    /** An amount of money: 0 to {@link #MAX_AMOUNT}, at most two decimals. */
    @NotNull
    @DecimalMin("0")
    @DecimalMax(MAX_AMOUNT)
    @Digits(integer = 10, fraction = 2)
    @ReportAsSingleViolation
    @Constraint(validatedBy = {})
    @Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER})
    @Retention(RetentionPolicy.RUNTIME)
    @Documented
    public @interface Amount {

        String message() default "must be an amount from 0 to " + MAX_AMOUNT + " with at most two decimals";

        Class<?>[] groups() default {};

        Class<? extends Payload>[] payload() default {};
    }
}
