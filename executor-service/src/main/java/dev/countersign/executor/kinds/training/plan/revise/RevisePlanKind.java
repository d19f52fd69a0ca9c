package dev.countersign.executor.kinds.training.plan.revise;

import java.time.LocalDate;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.KindAction;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.RowTarget;
import dev.countersign.executor.kind.TargetMoved;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * {@code training.plan.revise}: changes the named fields of one of the requester's drafts. An active or archived plan,
 * or another user's, is not a draft of theirs and is refused as not found.
 */
@ApplicationScoped
public class RevisePlanKind implements DatabaseKind {

    @Override
    public String kind() {
        return ShippedKinds.REVISE_PLAN;
    }

    @Override
    public Optional<RowTarget> target() {
        return Optional.of(new RowTarget("planId", "draft plan", true, """
                SELECT version, jsonb_build_object('name', name, 'goal', goal, 'startsOn', starts_on::text,
                                                   'schedule', schedule)::text AS fields
                FROM training_plans WHERE id = $1 AND current_tenant() = $2 AND user_id = $3 AND status = 'draft'"""));
    }

    @Override
    public RowOwner owner() {
        return RowOwner.requester();
    }

    @Override
    public Uni<JsonNode> execute(SqlClient sql, KindAction action) {
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
                .map(TargetMoved::unlessNoneMatched)
                .map(rows -> {
                    return (JsonNode) Json.mapper().createObjectNode().put("planId", planId)
                            .put("version", rows.iterator().next().getLong("version"));
                });
    }

}
