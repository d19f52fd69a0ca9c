package dev.countersign.agent.ledger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.contracts.TenantIsolation;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Reads the ledger under the agent's role, which the database allows to SELECT and nothing else. Every read runs in a
 * transaction that names the caller's tenant, so row-level security shows it that tenant's rows only; the queries
 * filter by tenant as well (the indexes lead with it).
 */
@ApplicationScoped
public class LedgerReader {

    public static final int MAX_TRANSACTIONS = 50;
    /** How long a tool waits for a read before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final Pool pool;

    public LedgerReader(Pool pool) {
        this.pool = pool;
    }

    public Uni<List<WalletSummary>> wallets(String tenantId) {
        return inTenant(tenantId,
                sql -> sql
                        .preparedQuery("SELECT id, name, currency FROM wallets WHERE tenant_id = $1 ORDER BY name, id")
                        .execute(Tuple.of(tenantId))
                        .map(rows -> {
                            List<WalletSummary> wallets = new ArrayList<>();
                            rows.forEach(row -> wallets.add(wallet(row)));
                            return wallets;
                        }));
    }

    private Uni<Optional<WalletSummary>> wallet(SqlConnection sql, String tenantId, UUID walletId) {
        return sql.preparedQuery("SELECT id, name, currency FROM wallets WHERE tenant_id = $1 AND id = $2")
                .execute(Tuple.of(tenantId, walletId))
                .map(rows -> rows.size() == 0 ? Optional.empty() : Optional.of(wallet(rows.iterator().next())));
    }

    /** The newest transactions first; {@code walletId} null means every wallet of the tenant. */
    public Uni<List<TransactionLine>> recentTransactions(String tenantId, UUID walletId, int limit) {
        return inTenant(tenantId, sql -> recentTransactions(sql, tenantId, walletId, limit));
    }

    /** One wallet's newest transactions, in one transaction; empty if the tenant has no such wallet. */
    public Uni<Optional<List<TransactionLine>>> walletTransactions(String tenantId, UUID walletId, int limit) {
        return inTenant(tenantId, sql -> wallet(sql, tenantId, walletId).flatMap(wallet -> wallet.isEmpty()
                ? Uni.createFrom().item(Optional.<List<TransactionLine>>empty())
                : recentTransactions(sql, tenantId, walletId, limit).map(Optional::of)));
    }

    private Uni<List<TransactionLine>> recentTransactions(SqlConnection sql, String tenantId, UUID walletId,
            int limit) {
        return sql.preparedQuery("""
                SELECT t.id, t.wallet_id, w.name AS wallet_name, t.amount::text AS amount, w.currency, t.category,
                       t.description, t.occurred_on
                FROM transactions t JOIN wallets w ON w.tenant_id = t.tenant_id AND w.id = t.wallet_id
                WHERE t.tenant_id = $1 AND ($2::uuid IS NULL OR t.wallet_id = $2)
                ORDER BY t.occurred_on DESC, t.created_at DESC
                LIMIT $3""")
                .execute(Tuple.of(tenantId, walletId, Math.min(Math.max(limit, 1), MAX_TRANSACTIONS)))
                .map(rows -> {
                    List<TransactionLine> lines = new ArrayList<>();
                    rows.forEach(row -> lines.add(new TransactionLine(row.getUUID("id"), row.getUUID("wallet_id"),
                            row.getString("wallet_name"), row.getString("amount"), row.getString("currency"),
                            row.getString("category"), row.getString("description"),
                            row.getLocalDate("occurred_on"))));
                    return lines;
                });
    }

    /** One transaction in which the database shows only {@code tenantId}'s rows. */
    private <T> Uni<T> inTenant(String tenantId, Function<SqlConnection, Uni<T>> read) {
        return pool.withTransaction(sql -> sql
                .preparedQuery("SELECT " + TenantIsolation.setTenant("$1"))
                .execute(Tuple.of(tenantId))
                .flatMap(ignored -> read.apply(sql)));
    }

    private static WalletSummary wallet(Row row) {
        return new WalletSummary(row.getUUID("id"), row.getString("name"), row.getString("currency"));
    }
}
