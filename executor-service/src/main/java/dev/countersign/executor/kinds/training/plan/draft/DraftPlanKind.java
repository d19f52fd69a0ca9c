package dev.countersign.executor.kinds.training.plan.draft;

import java.time.LocalDate;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.KindAction;
import dev.countersign.executor.kind.RowOwner;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/** {@code training.plan.draft}: a new plan of the requester, always a draft; its id is the action's id. */
@ApplicationScoped
public class DraftPlanKind implements DatabaseKind {

    @Override
    public String kind() {
        return ShippedKinds.DRAFT_PLAN;
    }

    @Override
    public RowOwner owner() {
        return RowOwner.requester();
    }

    @Override
    public Uni<JsonNode> execute(SqlClient sql, KindAction action) {
        JsonNode params = action.params();
        return sql.preparedQuery("""
                INSERT INTO training_plans (id, tenant_id, user_id, name, goal, starts_on, schedule, status,
                                            source_action_id)
                VALUES ($1, $2, $3, $4, $5, $6, $7, 'draft', $1)
                RETURNING id""")
                .execute(Tuple.from(new Object[]{action.id(), action.tenantId(), action.requestedBy(),
                        params.get("name").asText(), action.param("goal"),
                        LocalDate.parse(params.get("startsOn").asText()), params.get("schedule").asText()}))
                .map(rows -> (JsonNode) Json.mapper().createObjectNode()
                        .put("planId", rows.iterator().next().getUUID("id").toString()).put("status", "draft"));
    }
}
