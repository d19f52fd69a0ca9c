package dev.countersign.executor.kind;

import com.fasterxml.jackson.databind.JsonNode;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * A kind written in this database, inside the confirming transaction (so the write and the action's move commit
 * together, or neither). It reads its input from the stored action only and answers what it wrote (the action's
 * result). It fails with {@link ExecutionRefused} for an expected refusal (the action fails, its write rolls back
 * alone), with {@link TargetMoved} when its guarded statement matched no row. Writing to another tenant's rows is not
 * possible: every tenant table has row-level security keyed on the transaction's tenant.
 */
public interface DatabaseKind extends ActionKind {

    Uni<JsonNode> execute(SqlClient sql, KindAction action);
}
