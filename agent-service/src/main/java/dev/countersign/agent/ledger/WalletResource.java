package dev.countersign.agent.ledger;

import java.util.List;
import java.util.UUID;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

import dev.countersign.contracts.ErrorCode;
import dev.countersign.web.CurrentUser;
import dev.countersign.web.Ids;
import dev.countersign.web.ProblemException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;

/** Read-only views of the caller's ledger. Another tenant's wallet is simply not found. */
@Path("/api/wallets")
@Authenticated
public class WalletResource {

    private static final String NOT_FOUND = "No such wallet in your tenant.";

    private final LedgerReader ledger;
    private final CurrentUser user;

    public WalletResource(LedgerReader ledger, CurrentUser user) {
        this.ledger = ledger;
        this.user = user;
    }

    @GET
    public Uni<List<WalletSummary>> wallets() {
        return ledger.wallets(user.tenantId(), user.userId());
    }

    @GET
    @Path("/{id}/transactions")
    public Uni<List<TransactionLine>> transactions(@PathParam("id") String id) {
        String tenantId = user.tenantId();
        UUID walletId = Ids.parseOrNotFound(id, ErrorCode.NOT_FOUND, NOT_FOUND);
        return ledger.walletTransactions(tenantId, user.userId(), walletId, LedgerReader.MAX_TRANSACTIONS)
                .map(lines -> lines.orElseThrow(() -> new ProblemException(ErrorCode.NOT_FOUND, NOT_FOUND)));
    }
}
