package dev.countersign.executor.action;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.catalogue.Names;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * What a person's page calls the rows an action names: a wallet by its current name, a transaction or a plan by what
 * the action's staged target showed ("the 12.50 coffee expense of 2026-11-29", "plan \"Base\""). Anything it cannot
 * name keeps its id. Only for people: the stored summary the model may read keeps ids ({@link Names#IDS}).
 */
public final class PageNames {

    private final Map<String, String> walletNames;

    private PageNames(Map<String, String> walletNames) {
        this.walletNames = walletNames;
    }

    /** The tenant's wallet names, read in the caller's transaction (row-level security shows this tenant's only). */
    public static Uni<PageNames> load(SqlClient sql, String tenantId) {
        return sql.preparedQuery("SELECT id, name FROM wallets WHERE tenant_id = $1").execute(Tuple.of(tenantId))
                .map(rows -> {
                    Map<String, String> names = new java.util.HashMap<>();
                    rows.forEach(row -> names.put(row.getUUID("id").toString(), row.getString("name")));
                    return new PageNames(Map.copyOf(names));
                });
    }

    /** No names known: every row by its id. */
    public static PageNames none() {
        return new PageNames(Map.of());
    }

    /** The names for one action, whose staged target ({@code targetBefore}, may be null) names its row. */
    Names forAction(JsonNode targetBefore) {
        return new Names() {

            @Override
            public String wallet(String walletId) {
                String name = walletNames.get(walletId);
                return name == null ? Names.super.wallet(walletId) : name;
            }

            @Override
            public String transaction(String transactionId) {
                if (targetBefore == null || !targetBefore.hasNonNull("amount")) {
                    return Names.super.transaction(transactionId);
                }
                return "the %s %s expense of %s".formatted(targetBefore.get("amount").asText(),
                        targetBefore.path("category").asText(), targetBefore.path("occurredOn").asText());
            }

            @Override
            public String plan(String planId) {
                return targetBefore == null || !targetBefore.hasNonNull("name")
                        ? Names.super.plan(planId)
                        : "plan \"%s\"".formatted(targetBefore.get("name").asText());
            }
        };
    }
}
