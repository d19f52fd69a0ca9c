package dev.countersign.executor.imports;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.UriInfo;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.contracts.api.ImportResult;
import dev.countersign.contracts.api.ImportedRowsRequest;
import dev.countersign.executor.access.Caller;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.db.TenantTransactions.Actor;
import dev.countersign.executor.imports.ImportService.ImportHistoryEntry;
import dev.countersign.executor.imports.ImportService.PendingImport;
import dev.countersign.executor.imports.csv.CsvDeclaration;
import dev.countersign.executor.imports.csv.CsvLines;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.Ids;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.Vertx;

/**
 * Machine-extracted transactions: a CSV of bank or receipt lines is stored as unconfirmed rows of one of the importer's
 * own wallets, all or nothing; a person confirms them afterwards, under the tenant's tier and approval rules
 * ({@link ImportService}). Until then every read of the agent leaves them out. Imports are a person's upload, not an
 * agent action: agent-service cannot reach this.
 */
@Path("/api/actions/imports")
@Authenticated
public class ImportResource {

    /** The answer to a request without a body; the record's constraints answer the rest. */
    static final String ROWS = "must be \\{\"transactionIds\": [...]\\}";

    private final ImportService imports;
    private final ImportsConfig config;
    private final CurrentUser user;
    private final Caller caller;

    public ImportResource(ImportService imports, ImportsConfig config, CurrentUser user, Caller caller) {
        this.caller = caller;
        this.imports = imports;
        this.config = config;
        this.user = user;
    }

    /**
     * Reads the file as its uploader declares it ({@link CsvDeclaration}: the media type's charset and header, the
     * query's delimiter, date format, decimal mark, expense sign, default category and column names), on a worker
     * thread (a file of up to {@value ImportResult#MAX_LINES} lines is checked row by row), then stores on the
     * request's own Vert.x context: a Hibernate Reactive session runs on an event loop only.
     */
    @POST
    @Consumes({"text/csv", MediaType.TEXT_PLAIN})
    public Uni<ImportResult> importCsv(@QueryParam("wallet") String wallet, @Context HttpHeaders headers,
            @Context UriInfo uri, byte[] csv) {
        if (wallet == null) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED,
                    "Name the wallet to import into: POST /api/actions/imports?wallet=<wallet id>.");
        }
        UUID walletId = Ids.parseOrNotFound(wallet, ErrorCode.NOT_FOUND, ImportService.NO_WALLET);
        CsvDeclaration declared = CsvDeclaration.of(mediaTypeParameters(headers.getMediaType()),
                singleValues(uri.getQueryParameters()));
        Actor actor = actingUser();
        io.vertx.core.Context request = Vertx.currentContext();
        return Uni.createFrom().item(() -> validRows(csv, declared, walletId))
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
                .emitOn(task -> request.runOnContext(ignored -> task.run()))
                .flatMap(parsed -> imports.importRows(actor, walletId, parsed));
    }

    private CsvLines.Parsed validRows(byte[] csv, CsvDeclaration declared, UUID walletId) {
        CsvLines.Parsed parsed = CsvLines.parse(csv, declared, walletId, config.kind(), config.maxRowAmount());
        if (!parsed.violations().isEmpty()) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, "No line was imported; fix these and send the"
                    + " whole file again.", parsed.violations());
        }
        if (parsed.rows().isEmpty()) {
            throw new ProblemException(ErrorCode.VALIDATION_FAILED, "No expense to import%s: send 1 to %d lines of"
                    .formatted(parsed.skipped().isEmpty()
                            ? ""
                            : " (%d lines of money in skipped)"
                                    .formatted(parsed.skipped().size()),
                            ImportResult.MAX_LINES)
                    + " date,amount,category[,description], or a header row naming the columns.");
        }
        return parsed;
    }

    private static Map<String, String> mediaTypeParameters(MediaType type) {
        Map<String, String> parameters = new HashMap<>();
        if (type != null) {
            type.getParameters().forEach((name, value) -> parameters.put(name.toLowerCase(Locale.ROOT), value));
        }
        return parameters;
    }

    /** The query's parameters, each once: a declaration given twice is refused rather than one of them picked. */
    private static Map<String, String> singleValues(MultivaluedMap<String, String> query) {
        Map<String, String> values = new HashMap<>();
        query.forEach((name, given) -> {
            if (given.size() != 1) {
                throw new ProblemException(ErrorCode.VALIDATION_FAILED, "Declare '%s' once.".formatted(name));
            }
            values.put(name, given.get(0));
        });
        return values;
    }

    /**
     * The tenant's imported rows still waiting for a person, by date (at most {@value ImportResult#MAX_LINES}), each
     * with its tier against the tenant's threshold now.
     */
    @GET
    public Uni<List<PendingImport>> pending() {
        return imports.pending(user.tenantId(), ImportResult.MAX_LINES, caller.principal(), caller.channel());
    }

    /**
     * Who imported and who confirmed one imported row, when, through what and at which tier (appended by the database,
     * append-only); 404 if the tenant has no imported row with this id.
     */
    @GET
    @Path("/{transactionId}/history")
    public Uni<List<ImportHistoryEntry>> history(@PathParam("transactionId") String transactionId) {
        UUID id = Ids.parseOrNotFound(transactionId, ErrorCode.NOT_FOUND, "No imported row with this id.");
        return imports.history(user.tenantId(), id, caller.principal(), caller.channel()).map(entries -> {
            if (entries.isEmpty()) {
                throw new ProblemException(ErrorCode.NOT_FOUND, "No imported row with this id.");
            }
            return entries;
        });
    }

    /**
     * Marks imported rows confirmed, recording who did: as the decision rule allows (their importer below the
     * high-impact threshold, or an approver; 403 {@code forbidden} otherwise, nothing confirmed), and the tenant's
     * approval policy (403 {@code approver_not_allowed}). Answers how many of them were still unconfirmed.
     */
    @POST
    @Path("/confirm")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Integer> confirm(@NotNull(message = ROWS) @Valid ImportedRowsRequest request) {
        return imports.confirm(actingUser(), request.transactionIds(), caller.principal(), caller.channel());
    }

    /**
     * Rejects imported rows still waiting for a person: they leave the books and the trail names who rejected them.
     * Their importer or an approver of the tenant may (403 {@code forbidden} otherwise, nothing rejected). Answers how
     * many were still waiting.
     */
    @POST
    @Path("/reject")
    @Consumes(MediaType.APPLICATION_JSON)
    public Uni<Integer> reject(@NotNull(message = ROWS) @Valid ImportedRowsRequest request) {
        return imports.reject(actingUser(), request.transactionIds(), caller.principal(), caller.channel());
    }

    private Actor actingUser() {
        return new Actor(user.tenantId(), user.userId(), TenantTransactions.HTTP);
    }
}
