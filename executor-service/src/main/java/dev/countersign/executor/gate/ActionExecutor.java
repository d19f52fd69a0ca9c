package dev.countersign.executor.gate;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.executor.action.ActionRow;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * Writes one kind of action. It runs inside the confirming transaction, reads its input from the stored proposal only,
 * and returns what it wrote (the action's result). It fails with {@link ExecutionRefused} for expected refusals.
 */
public interface ActionExecutor {

    String kind();

    Uni<JsonNode> execute(SqlClient sql, ActionRow action);
}
