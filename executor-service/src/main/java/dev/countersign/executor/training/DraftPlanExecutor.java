package dev.countersign.executor.training;

import java.time.LocalDate;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.execution.ActionExecutor;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/** {@code training.plan.draft}: a new plan of the requester, always a draft; its id is the action's id. */
@ApplicationScoped
public class DraftPlanExecutor implements ActionExecutor {

    @Override
    public String kind() {
        return ActionCatalogue.DRAFT_PLAN;
    }

    @Override
    public Uni<JsonNode> execute(SqlClient sql, ActionRow action) {
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
