package dev.countersign.executor.policy;

import java.math.BigDecimal;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.api.AutoApplyBudget;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.ActionsConfig;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The tenant's auto-apply budget as staging spends it. The budget is read from the tenant's policy row (the
 * deployment's defaults where an administrator set none; an administrator reads and sets it through
 * {@link PolicySettingsRepository}); spending is one call of the database function {@code spend_auto_apply_budget}
 * (migration R__auto_apply_budget.sql), which serialises a tenant's spenders and checks every bound, so two executor
 * instances cannot overshoot together. A spend belongs to the caller's transaction: rolled back with it.
 */
@ApplicationScoped
public class AutoApplyBudgets {

    /** Which bound stopped an automatic application, as the database names it. */
    public enum Bound {

        TURN("turn", "the auto-apply budget for this turn is reached"), USER_DAY("user_day",
                "the auto-apply budget for today is reached"), TENANT_DAY("tenant_day",
                        "the tenant's auto-apply budget for today is reached");

        private final String wire;
        private final String reason;

        Bound(String wire, String reason) {
            this.wire = wire;
            this.reason = reason;
        }

        /** What the action's card, its history and its {@code ActionStaged} event say. */
        public String reason() {
            return reason + "; it waits for a person";
        }

        static Bound fromWire(String wire) {
            for (Bound bound : values()) {
                if (bound.wire.equals(wire)) {
                    return bound;
                }
            }
            throw new IllegalStateException("Unknown auto-apply bound " + wire);
        }
    }

    private static final String COLUMNS = "auto_apply_turn_count, auto_apply_turn_amount, auto_apply_user_day_count,"
            + " auto_apply_user_day_amount, auto_apply_tenant_day_count, auto_apply_tenant_day_amount";

    private final AutoApplyBudget defaults;

    public AutoApplyBudgets(ActionsConfig config) {
        ActionsConfig.AutoApplyBudgetDefaults d = config.autoApplyBudget();
        this.defaults = new AutoApplyBudget(d.turnCount(), d.turnAmount(), d.userDayCount(), d.userDayAmount(),
                d.tenantDayCount(), d.tenantDayAmount());
    }

    /** The deployment's budget, for a tenant whose administrator never set one. */
    public AutoApplyBudget defaults() {
        return defaults;
    }

    /**
     * The tenant's budget as staging spends it; the settings page reads it through {@link PolicySettingsRepository}.
     */
    private Uni<AutoApplyBudget> of(SqlClient sql, String tenantId) {
        return sql.preparedQuery("SELECT " + COLUMNS + " FROM tenant_policies WHERE tenant_id = $1"
                + " AND auto_apply_turn_count IS NOT NULL")
                .execute(Tuple.of(tenantId))
                .map(rows -> rows.size() == 0 ? defaults : budget(rows.iterator().next()));
    }

    /**
     * Spends {@code amount} and one action of the budget for {@code action} (its requester, its turn); null if it fit,
     * else the first bound it would pass (nothing spent then).
     */
    public Uni<Bound> spend(SqlClient sql, ActionRow action, BigDecimal amount) {
        return of(sql, action.tenantId()).flatMap(budget -> sql
                .preparedQuery("SELECT spend_auto_apply_budget($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) AS bound")
                .execute(Tuple.from(new Object[]{action.tenantId(), action.requestedBy(), action.turnId(),
                        action.id(), amount, budget.turnCount(), budget.turnAmount(), budget.userDayCount(),
                        budget.userDayAmount(), budget.tenantDayCount(), budget.tenantDayAmount()}))
                .map(rows -> {
                    String bound = rows.iterator().next().getString("bound");
                    return bound == null ? null : Bound.fromWire(bound);
                }));
    }

    private static AutoApplyBudget budget(Row row) {
        return new AutoApplyBudget(row.getInteger("auto_apply_turn_count"),
                row.getBigDecimal("auto_apply_turn_amount"), row.getInteger("auto_apply_user_day_count"),
                row.getBigDecimal("auto_apply_user_day_amount"), row.getInteger("auto_apply_tenant_day_count"),
                row.getBigDecimal("auto_apply_tenant_day_amount"));
    }
}
