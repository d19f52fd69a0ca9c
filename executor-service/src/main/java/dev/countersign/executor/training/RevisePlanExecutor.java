package dev.countersign.executor.training;

import java.time.LocalDate;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.execution.ActionExecutor;
import dev.countersign.executor.execution.Targets;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * {@code training.plan.revise}: changes the named fields of one of the requester's drafts. An active or archived plan,
 * or another user's, is not a draft of theirs and is refused as not found.
 */
@ApplicationScoped
public class RevisePlanExecutor implements ActionExecutor {

    private final Targets targets;

    public RevisePlanExecutor(Targets targets) {
        this.targets = targets;
    }

    @Override
    public String kind() {
        return ActionCatalogue.REVISE_PLAN;
    }

    @Override
    public Uni<JsonNode> execute(SqlClient sql, ActionRow action) {
        JsonNode params = action.params();
        String planId = params.get("planId").asText();
        return sql.preparedQuery("""
                UPDATE training_plans SET name = coalesce($4, name), goal = coalesce($5, goal),
                       starts_on = coalesce($6, starts_on), schedule = coalesce($7, schedule),
                       name_action_id = CASE WHEN $4::text IS NULL THEN name_action_id ELSE $9 END,
                       goal_action_id = CASE WHEN $5::text IS NULL THEN goal_action_id ELSE $9 END,
                       schedule_action_id = CASE WHEN $7::text IS NULL THEN schedule_action_id ELSE $9 END,
                       version = version + 1, updated_at = now()
                WHERE id = $1 AND current_tenant() = $2 AND user_id = $3 AND status = 'draft'
                  AND ($8::bigint IS NULL OR version = $8)
                RETURNING version""")
                .execute(Tuple.from(new Object[]{UUID.fromString(planId), action.tenantId(), action.requestedBy(),
                        action.param("name"), action.param("goal"), action.param("startsOn", LocalDate::parse),
                        action.param("schedule"), action.targetVersion(), action.id()}))
                .flatMap(rows -> targets.written(sql, action, rows))
                .map(rows -> {
                    return (JsonNode) Json.mapper().createObjectNode().put("planId", planId)
                            .put("version", rows.iterator().next().getLong("version"));
                });
    }

}
