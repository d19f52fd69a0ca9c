package dev.countersign.executor.execution;

import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.action.TargetSnapshot;
import dev.countersign.executor.kind.ActionKind;
import dev.countersign.executor.kind.ExecutionRefused;
import dev.countersign.executor.kind.RowOwner;
import dev.countersign.executor.kind.RowTarget;
import dev.countersign.executor.kind.StagingCheck;
import dev.countersign.executor.kind.TargetMoved;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The existing row an action of a kind changes and whose it is, as the kind declares them ({@link RowTarget},
 * {@link RowOwner}): staging reads the target's version and the fields a person is shown into the action; execution
 * writes only while the row still has that version, and {@link #explainMoved} says why it did not.
 */
@ApplicationScoped
public class Targets {

    private final ExecutorRegistry kinds;

    public Targets(ExecutorRegistry kinds) {
        this.kinds = kinds;
    }

    /**
     * The person whose row an action of {@code kind} writes, as it is now: null for a row nobody owns, or one that does
     * not exist (staging refuses a missing target anyway).
     */
    public Uni<String> owner(SqlClient sql, String kind, JsonNode params, String tenantId, String requestedBy) {
        RowOwner owner = kinds.find(kind).map(ActionKind::owner).orElse(RowOwner.nobody());
        if (!owner.isOwned()) {
            return Uni.createFrom().nullItem();
        }
        if (owner.requesters()) {
            return Uni.createFrom().item(requestedBy);
        }
        Tuple arguments = owner.idParam() == null
                ? Tuple.of(params.toString(), tenantId, requestedBy)
                : Tuple.of(UUID.fromString(params.get(owner.idParam()).asText()), tenantId);
        return sql.preparedQuery(owner.query()).execute(arguments)
                .map(rows -> rows.size() == 0 ? null : rows.iterator().next().getString("owner"));
    }

    /**
     * Why the kind's own staging check refuses the proposal ({@link StagingCheck}), or null when it has none or lets it
     * stage.
     */
    public Uni<ExecutionRefused> refusal(SqlClient sql, String kind, JsonNode params, String tenantId,
            String requestedBy) {
        StagingCheck check = kinds.find(kind).flatMap(ActionKind::stagingCheck).orElse(null);
        if (check == null) {
            return Uni.createFrom().nullItem();
        }
        // The check need not use every parameter: typed here, PostgreSQL knows each one's type all the same.
        return sql.preparedQuery("SELECT c.refusal, c.reason FROM (" + check.query()
                + ") AS c CROSS JOIN (SELECT $1::text, $2::text, $3::text) AS typed LIMIT 1")
                .execute(Tuple.of(params.toString(), tenantId, requestedBy))
                .map(rows -> {
                    if (rows.size() == 0) {
                        return null;
                    }
                    var row = rows.iterator().next();
                    ErrorCode code = ErrorCode.find(row.getString("refusal"))
                            .orElseThrow(() -> new IllegalStateException(
                                    "The staging check of " + kind + " answered " + row.getString("refusal")
                                            + ", which is no error code of the API"));
                    return new ExecutionRefused(code, row.getString("reason"));
                });
    }

    /**
     * Whether the owner of {@code kind}'s row is read from the database: then a proposal whose row has none (it does
     * not exist in the tenant) is refused at staging, as a missing owner would read as the requester's own.
     */
    public boolean readsOwner(String kind) {
        return kinds.find(kind).map(ActionKind::owner).map(owner -> owner.query() != null).orElse(false);
    }

    /** The id of the existing row an action of {@code kind} with {@code params} changes; empty if it changes none. */
    public Optional<UUID> targetId(String kind, JsonNode params) {
        return target(kind).map(target -> idOf(target, params));
    }

    private static UUID idOf(RowTarget target, JsonNode params) {
        return UUID.fromString(params.get(target.idParam()).asText());
    }

    /** Whether actions of {@code kind} change an existing row. */
    public boolean hasTarget(String kind) {
        return target(kind).isPresent();
    }

    /**
     * The target of a proposal as it is now, or empty if it does not exist for this requester (or the kind has no
     * target).
     */
    public Uni<Optional<TargetSnapshot>> read(SqlClient sql, String kind, JsonNode params, String tenantId,
            String requestedBy) {
        RowTarget target = target(kind).orElse(null);
        if (target == null) {
            return Uni.createFrom().item(Optional.empty());
        }
        UUID id = idOf(target, params);
        Tuple arguments = target.requestersOwn() ? Tuple.of(id, tenantId, requestedBy) : Tuple.of(id, tenantId);
        return sql.preparedQuery(target.query()).execute(arguments).map(rows -> rows.size() == 0
                ? Optional.<TargetSnapshot>empty()
                : Optional.of(new TargetSnapshot(rows.iterator().next().getLong("version"),
                        Json.read(rows.iterator().next().getString("fields"), JsonNode.class))));
    }

    /**
     * Completes if the action's target still has the version it was staged with; fails with {@code target_changed} or
     * {@code target_not_found} otherwise. For writes outside this database, which cannot guard their own statement.
     */
    public Uni<Void> unchangedSinceStaging(SqlClient sql, ActionRow action) {
        if (!hasTarget(action.kind())) {
            return Uni.createFrom().voidItem();
        }
        return read(sql, action.kind(), action.params(), action.tenantId(), action.requestedBy())
                .flatMap(now -> now.isPresent() && Long.valueOf(now.get().version()).equals(action.targetVersion())
                        ? Uni.createFrom().voidItem()
                        : refuse(sql, action));
    }

    /** Why the target was not found for staging, in words. */
    public String missing(String kind, JsonNode params) {
        RowTarget target = target(kind).orElseThrow();
        return "%s %s does not exist in this tenant".formatted(target.noun(), params.get(target.idParam()).asText());
    }

    /**
     * Why a write guarded by the staged version matched no row ({@link TargetMoved}): a failure with
     * {@code target_not_found} if the row is gone, {@code target_changed} if it moved on since the action was staged
     * ({@code moved} itself for a kind that declares no target).
     */
    public <T> Uni<T> explainMoved(SqlClient sql, ActionRow action, TargetMoved moved) {
        return hasTarget(action.kind()) ? refuse(sql, action) : Uni.createFrom().failure(moved);
    }

    private <T> Uni<T> refuse(SqlClient sql, ActionRow action) {
        return read(sql, action.kind(), action.params(), action.tenantId(), action.requestedBy())
                .flatMap(now -> Uni.createFrom().failure(now.isEmpty()
                        ? new ExecutionRefused(ErrorCode.TARGET_NOT_FOUND, missing(action.kind(), action.params()))
                        : new ExecutionRefused(ErrorCode.TARGET_CHANGED, ("the %s changed since it was staged"
                                + " (version %d then, %d now); propose it again")
                                .formatted(target(action.kind()).orElseThrow().noun(), action.targetVersion(),
                                        now.get().version()))));
    }

    private Optional<RowTarget> target(String kind) {
        return kinds.find(kind).flatMap(ActionKind::target);
    }
}
