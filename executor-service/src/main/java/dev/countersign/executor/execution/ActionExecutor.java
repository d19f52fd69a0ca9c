package dev.countersign.executor.execution;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.executor.action.ActionRow;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * Writes one kind of action. It runs inside the confirming transaction, reads its input from the stored proposal only,
 * and returns what it wrote (the action's result). It fails with {@link ExecutionRefused} for expected refusals.
 * <p>
 * An executor that reaches outside this database (a vendor's API) cannot join the transaction: it must send
 * {@link ActionRow#idempotencyKey()} as the vendor's idempotency key, so a retry after a crash does not repeat the call
 * at a vendor that honours keys.
 */
public interface ActionExecutor {

    String kind();

    Uni<JsonNode> execute(SqlClient sql, ActionRow action);
}
