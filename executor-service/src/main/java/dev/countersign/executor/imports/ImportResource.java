package dev.countersign.executor.imports;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ConfirmImportRequest;
import dev.countersign.contracts.api.ImportResult;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.executor.action.TenantTransactions;
import dev.countersign.executor.action.TenantTransactions.Actor;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.Ids;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Machine-extracted transactions: a CSV of bank or receipt lines is stored as unconfirmed rows of one of the tenant's
 * wallets, all or nothing; a person confirms them afterwards. Until then every read of the agent leaves them out.
 * Imports are a person's upload, not an agent action: agent-service cannot reach this.
 */
@Path("/api/actions/imports")
@Authenticated
public class ImportResource {

    private static final String NO_WALLET = "You have no wallet with this id.";

    private final TenantTransactions transactions;
    private final CurrentUser user;

    public ImportResource(TenantTransactions transactions, CurrentUser user) {
        this.transactions = transactions;
        this.user = user;
    }

    /** Parses on a worker thread: a file of up to {@value ImportResult#MAX_LINES} lines is checked line by line. */
    @POST
    @Blocking
    @Consumes({"text/csv", MediaType.TEXT_PLAIN})
    public Uni<ImportResult> importCsv(@QueryParam("wallet") String wallet, String csv) {
        UUID walletId = Ids.parseOrNotFound(wallet, ErrorCode.NOT_FOUND, NO_WALLET);
        CsvLines.Parsed parsed = CsvLines.parse(csv, walletId);
        if (!parsed.violations().isEmpty()) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, "No line was imported; fix these and send the"
                    + " whole file again.", parsed.violations());
        }
        if (parsed.rows().isEmpty()) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "Send 1 to %d lines of date,amount,category[,description].".formatted(ImportResult.MAX_LINES));
        }
        List<Tuple> batch = new ArrayList<>();
        List<UUID> ids = new ArrayList<>();
        for (ValidatedParams row : parsed.rows()) {
            UUID id = UUID.randomUUID();
            ids.add(id);
            var params = row.normalised();
            batch.add(Tuple.from(new Object[]{id, user.tenantId(), walletId, new BigDecimal(params.get("amount")
                    .asText()), params.get("category").asText(),
                    params.hasNonNull("description") ? params.get("description").asText() : null,
                    LocalDate.parse(params.get("occurredOn").asText()), user.userId()}));
        }
        return transactions.run(actingUser(), sql -> sql
                .preparedQuery("SELECT 1 FROM wallets WHERE id = $1 AND tenant_id = $2")
                .execute(Tuple.of(walletId, user.tenantId()))
                .flatMap(found -> {
                    if (found.size() == 0) {
                        throw new ProblemException(ErrorCode.NOT_FOUND, NO_WALLET);
                    }
                    return sql.preparedQuery("""
                            INSERT INTO transactions (id, tenant_id, wallet_id, amount, category, description,
                                                      occurred_on, unconfirmed, imported_by)
                            VALUES ($1, $2, $3, $4, $5, $6, $7, true, $8)""").executeBatch(batch);
                })
                .map(inserted -> new ImportResult(walletId, ids)));
    }

    /**
     * The tenant's imported rows still waiting for a person, by date (at most {@value ImportResult#MAX_LINES}).
     */
    @GET
    public Uni<List<PendingImport>> pending() {
        return transactions.read(user.tenantId(), sql -> sql.preparedQuery("""
                SELECT t.id, t.wallet_id, t.occurred_on, t.amount::text AS amount, t.category, t.description,
                       t.imported_by
                FROM transactions t
                WHERE t.tenant_id = $1 AND t.unconfirmed AND t.deleted_at IS NULL
                ORDER BY t.occurred_on, t.created_at, t.id LIMIT $2""")
                .execute(Tuple.of(user.tenantId(), ImportResult.MAX_LINES))
                .map(rows -> {
                    List<PendingImport> pending = new ArrayList<>();
                    rows.forEach(row -> pending.add(new PendingImport(row.getUUID("id"), row.getUUID("wallet_id"),
                            row.getLocalDate("occurred_on"), row.getString("amount"), row.getString("category"),
                            row.getString("description"), row.getString("imported_by"))));
                    return pending;
                }));
    }

    /** An imported row as the person reviews it before confirming. */
    public record PendingImport(UUID id, UUID walletId, LocalDate occurredOn, String amount, String category,
            String description, String importedBy) {
    }

    /**
     * Marks the tenant's imported rows confirmed, recording who did (any user of the tenant may: the rows are the
     * tenant's own data, not an agent's action); answers how many of them were still unconfirmed.
     */
    @POST
    @Path("/confirm")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Integer> confirm(ConfirmImportRequest request) {
        if (request == null || request.transactionIds() == null || request.transactionIds().isEmpty()
                || request.transactionIds().size() > ImportResult.MAX_LINES) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "Send {\"transactionIds\": [...]} with 1 to %d ids.".formatted(ImportResult.MAX_LINES));
        }
        return transactions.run(actingUser(), sql -> sql.preparedQuery("""
                UPDATE transactions SET unconfirmed = false, import_confirmed_by = $3
                WHERE tenant_id = $1 AND id = ANY($2) AND unconfirmed AND deleted_at IS NULL""")
                .execute(Tuple.of(user.tenantId(), request.transactionIds().toArray(UUID[]::new), user.userId()))
                .map(rows -> rows.rowCount()));
    }

    private Actor actingUser() {
        return new Actor(user.tenantId(), user.userId(), TenantTransactions.HTTP);
    }
}
