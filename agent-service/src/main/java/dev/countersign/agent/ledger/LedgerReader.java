package dev.countersign.agent.ledger;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.hibernate.reactive.mutiny.Mutiny;

import dev.countersign.agent.evidence.Person;
import dev.countersign.contracts.catalogue.ActionCatalogue;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Reads wallets and transactions, in the caller's tenant only: wallets and the user's categories as mapped reads
 * ({@link TenantSessions}); transaction searches and spending figures as native SQL ({@link TenantReads}), which share
 * one filter ({@code MATCHING}) and use what HQL lacks (arrays of search words, grouping sets).
 */
@ApplicationScoped
public class LedgerReader {

    public static final int MAX_TRANSACTIONS = 50;
    public static final int MAX_SUMMARY_ROWS = 100;
    /** Room for the currency totals, which come first, next to the category rows. */
    private static final int MAX_CURRENCIES = 20;

    /** Each row marked whether {@code $8}, the reading user, wrote its text ({@link OwnText}). */
    private static final String TRANSACTION_COLUMNS = """
            SELECT t.id, t.wallet_id, w.name AS wallet_name, t.amount::text AS amount, w.currency, t.category,
                   t.description, t.occurred_on, t.imported_by IS NULL AND %s AS own_text
            FROM transactions t JOIN wallets w ON w.tenant_id = t.tenant_id AND w.id = t.wallet_id
            """
            .formatted(OwnText.writtenBy("$8", "coalesce(t.description_action_id, t.source_action_id)", "t.tenant_id")
                    + " AND " + OwnText.writtenBy("$8", "coalesce(t.category_action_id, t.source_action_id)",
                            "t.tenant_id"));

    /**
     * The tenant's rows ({@code $1}) not deleted, in wallet {@code $2}, category {@code $3} (either case) and days
     * {@code $4} to {@code $5}, each null for any: the one filter every read by wallet, category and days shares.
     */
    private static final String MATCHING = """
             t.tenant_id = $1 AND t.deleted_at IS NULL
              AND ($2::uuid IS NULL OR t.wallet_id = $2) AND ($3::text IS NULL OR lower(t.category) = lower($3))
              AND ($4::date IS NULL OR t.occurred_on >= $4) AND ($5::date IS NULL OR t.occurred_on <= $5)
            """;

    /**
     * Rows of the tenant ({@code $1}) not deleted and recorded from {@code $2} up to the transaction's start
     * ({@code now()}): a window on when rows entered the ledger (not on the day they name), so consecutive windows that
     * share an end and a start count each row once, a back-dated expense included.
     */
    private static final String RECORDED = """
             t.tenant_id = $1 AND t.deleted_at IS NULL AND t.created_at >= $2 AND t.created_at < now()
            """;

    private final TenantReads reads;
    private final TenantSessions sessions;

    public LedgerReader(TenantReads reads, TenantSessions sessions) {
        this.reads = reads;
        this.sessions = sessions;
    }

    void parseAtStartup(@Observes StartupEvent start) {
        sessions.parseAtStartup(WALLETS, WalletSummary.class);
        sessions.parseAtStartup(OWN_CATEGORIES, String.class);
    }

    /** The tenant's wallets, each marked whether {@code userId} chose its name (a mapped read). */
    public Uni<List<WalletSummary>> wallets(String tenantId, String userId) {
        return sessions.inTenant(new Person(tenantId, userId), session -> wallets(session, tenantId, userId));
    }

    /**
     * A wallet's name is trusted when it was set with the wallet (the tenant's setup) or by a rename {@code :user}
     * proposed clean ({@link OwnText}); a name another user chose is text this user did not write.
     */
    private static final String WALLETS = """
            select new dev.countersign.agent.ledger.WalletSummary(w.id, w.name, w.currency,
                   case when w.nameActionId is null or %s then true else false end)
            from StoredWallet w where w.tenantId = :tenant order by w.name, w.id"""
            .formatted(OwnText.writtenByHql(":user", "w.nameActionId", "w.tenantId"));

    private static Uni<List<WalletSummary>> wallets(Mutiny.Session session, String tenantId, String userId) {
        return session.createSelectionQuery(WALLETS, WalletSummary.class)
                .setParameter("tenant", tenantId)
                .setParameter("user", userId)
                .getResultList();
    }

    /**
     * What a turn's tool schemas are built from, in one transaction: the tenant's wallets, and the categories
     * {@code userId} wrote (those of rows their own actions wrote, not imported; then the catalogue's defaults). A
     * category someone else wrote is text the user did not write: it is not offered in the schemas, where it would sit
     * in every turn's context (see {@link TransactionLine#ownText}). A mapped read, run once per turn.
     */
    public Uni<TenantFacts> facts(String tenantId, String userId) {
        return sessions.inTenant(new Person(tenantId, userId),
                session -> wallets(session, tenantId, userId).flatMap(wallets -> session
                        .createSelectionQuery(OWN_CATEGORIES, String.class)
                        .setParameter("tenant", tenantId)
                        .setParameter("user", userId)
                        .setMaxResults(TenantFacts.MAX_CATEGORIES)
                        .getResultList()
                        .map(categories -> new TenantFacts(wallets,
                                TenantFacts.withDefaults(categories, ActionCatalogue.DEFAULT_CATEGORIES)))));
    }

    /** The categories of the tenant's rows whose text {@code :user} wrote, most used first. */
    private static final String OWN_CATEGORIES = """
            select t.category from StoredTransaction t
            where t.tenantId = :tenant and t.deletedAt is null and t.unconfirmed = false and t.importedBy is null
              and %s
            group by t.category order by count(*) desc, t.category"""
            .formatted(OwnText.writtenByHql(":user", "coalesce(t.categoryActionId, t.sourceActionId)", "t.tenantId"));

    /** One wallet's newest transactions, in one transaction; empty if the tenant has no such wallet. */
    public Uni<Optional<List<TransactionLine>>> walletTransactions(String tenantId, String userId, UUID walletId,
            int limit) {
        TransactionQuery query = new TransactionQuery(walletId, null, null, null, List.of(), limit);
        return reads.inTenant(new Person(tenantId, userId), sql -> sql
                .preparedQuery("SELECT id FROM wallets WHERE tenant_id = $1 AND id = $2")
                .execute(Tuple.of(tenantId, walletId))
                .flatMap(wallet -> wallet.size() == 0
                        ? Uni.createFrom().item(Optional.<List<TransactionLine>>empty())
                        : transactions(sql, tenantId, userId, query).map(Optional::of)));
    }

    /** The tenant's transactions matching {@code query}, each marked whether {@code userId} wrote its text. */
    public List<TransactionLine> transactions(String tenantId, String userId, TransactionQuery query) {
        return reads.inTenant(new Person(tenantId, userId), sql -> transactions(sql, tenantId, userId, query))
                .await().atMost(TenantReads.TIMEOUT);
    }

    private static Uni<List<TransactionLine>> transactions(SqlConnection sql, String tenantId, String userId,
            TransactionQuery q) {
        return sql.preparedQuery(TRANSACTION_COLUMNS + "WHERE " + MATCHING + """
                  AND NOT t.unconfirmed
                  AND NOT EXISTS (SELECT 1 FROM unnest($6::text[]) word
                                  WHERE coalesce(t.description, '') NOT ILIKE '%' || word || '%'
                                    AND t.category NOT ILIKE '%' || word || '%')
                ORDER BY t.occurred_on DESC, t.created_at DESC
                LIMIT $7""")
                .execute(Tuple.from(new Object[]{tenantId, q.walletId(), q.category(), q.from(), q.to(),
                        q.words().toArray(String[]::new),
                        Math.min(Math.max(q.limit(), 1), MAX_TRANSACTIONS), userId}))
                .map(rows -> TenantReads.map(rows, LedgerReader::transaction));
    }

    /**
     * Totals per period and category (compared in lower case, as the tools offer them) and currency (wallets may
     * differ), newest period first.
     */
    public List<SpendingLine> spending(Person person, SpendingQuery q) {
        return reads.list(person, """
                SELECT date_trunc($6, t.occurred_on::timestamp)::date AS period_start, lower(t.category) AS category,
                       w.currency,
                       sum(t.amount)::text AS total, count(*) AS transactions
                FROM transactions t JOIN wallets w ON w.tenant_id = t.tenant_id AND w.id = t.wallet_id
                WHERE""" + MATCHING + """
                  AND NOT t.unconfirmed
                GROUP BY 1, 2, 3
                ORDER BY 1 DESC, sum(t.amount) DESC, 2
                LIMIT $7""",
                Tuple.from(new Object[]{person.tenantId(), q.walletId(), q.category(), q.from(), q.to(),
                        q.period().name().toLowerCase(java.util.Locale.ROOT), MAX_SUMMARY_ROWS}),
                row -> new SpendingLine(row.getLocalDate("period_start"), row.getString("category"),
                        row.getString("currency"), row.getString("total"), row.getLong("transactions")));
    }

    /**
     * How many imported rows not yet confirmed by a person match the wallet, category and date range: every read above
     * leaves them out, and says so.
     */
    public long unconfirmed(Person person, UUID walletId, String category, LocalDate from, LocalDate to) {
        return reads.list(person, "SELECT count(*) AS unconfirmed FROM transactions t WHERE " + MATCHING
                + " AND t.unconfirmed",
                Tuple.from(new Object[]{person.tenantId(), walletId, category, from, to}),
                row -> row.getLong("unconfirmed")).get(0);
    }

    /**
     * Confirmed spending recorded since {@code since} until the database's now, per category (lower case) and currency,
     * with the totals per currency, and how many unconfirmed rows of the window were left out; one transaction, so
     * every figure has the same end. At most {@value #MAX_SUMMARY_ROWS} category rows, largest first; the currency
     * totals come first, so a cut never shortens them.
     * <p>
     * Limit: {@code created_at} is the writing transaction's start, so a row whose transaction started before the end
     * but committed after this read is in neither this window nor the next.
     */
    public RecordedSpending recordedSince(Person person, Instant since) {
        OffsetDateTime from = since.atOffset(ZoneOffset.UTC);
        return reads.inTenant(person, sql -> sql.preparedQuery("""
                SELECT lower(t.category) AS category, w.currency, sum(t.amount)::text AS total,
                       count(*) AS transactions, grouping(lower(t.category)) = 1 AS currency_total
                FROM transactions t JOIN wallets w ON w.tenant_id = t.tenant_id AND w.id = t.wallet_id
                WHERE""" + RECORDED + """
                  AND NOT t.unconfirmed
                GROUP BY GROUPING SETS ((lower(t.category), w.currency), (w.currency))
                ORDER BY grouping(lower(t.category)) DESC, w.currency, sum(t.amount) DESC, 1
                LIMIT $3""")
                .execute(Tuple.of(person.tenantId(), from, MAX_SUMMARY_ROWS + MAX_CURRENCIES))
                .flatMap(totals -> sql.preparedQuery("SELECT now() AS until, count(*) AS unconfirmed"
                        + " FROM transactions t WHERE" + RECORDED + " AND t.unconfirmed")
                        .execute(Tuple.of(person.tenantId(), from))
                        .map(rows -> recorded(since, totals, rows.iterator().next()))))
                .await().atMost(TenantReads.TIMEOUT);
    }

    private static RecordedSpending recorded(Instant since, RowSet<Row> totals, Row window) {
        List<SpendingTotal> byCategory = new ArrayList<>();
        List<SpendingTotal> byCurrency = new ArrayList<>();
        totals.forEach(row -> (row.getBoolean("currency_total") ? byCurrency : byCategory).add(new SpendingTotal(
                row.getString("category"), row.getString("currency"), row.getString("total"),
                row.getLong("transactions"))));
        return new RecordedSpending(since, window.getOffsetDateTime("until").toInstant(),
                List.copyOf(byCategory.subList(0, Math.min(byCategory.size(), MAX_SUMMARY_ROWS))),
                List.copyOf(byCurrency), window.getLong("unconfirmed"));
    }

    /** The sentence a read adds when it left unconfirmed rows out; empty when there were none. */
    public static String leftOut(long unconfirmed) {
        return unconfirmed == 0
                ? ""
                : "\n(%d imported transaction(s) not yet confirmed by the user were left out.)".formatted(unconfirmed);
    }

    private static TransactionLine transaction(Row row) {
        return new TransactionLine(row.getUUID("id"), row.getUUID("wallet_id"), row.getString("wallet_name"),
                row.getString("amount"), row.getString("currency"), row.getString("category"),
                row.getString("description"), row.getLocalDate("occurred_on"), row.getBoolean("own_text"));
    }

    /**
     * @param words
     *            each must appear in the note or the category (ignoring case); letters and digits only (see
     *            {@link #words}); empty for no search
     */
    public record TransactionQuery(UUID walletId, String category, LocalDate from, LocalDate to, List<String> words,
            int limit) {
    }

    public record SpendingQuery(Period period, UUID walletId, String category, LocalDate from, LocalDate to) {
    }

    public enum Period {
        DAY, WEEK, MONTH, YEAR
    }

    /**
     * Spending recorded from {@code from} to {@code to} (the database's clock): per category and currency, per
     * currency, and how many unconfirmed rows it left out.
     */
    public record RecordedSpending(Instant from, Instant to, List<SpendingTotal> byCategory,
            List<SpendingTotal> byCurrency, long unconfirmedLeftOut) {
    }

    /** A total in one currency; {@code category} is null in a currency's total over all categories. */
    public record SpendingTotal(String category, String currency, String total, long transactions) {
    }

    public record SpendingLine(LocalDate periodStart, String category, String currency, String total,
            long transactions) {
    }

    /**
     * Free text as search words: everything but letters and digits separates words, so no word can be a pattern
     * ({@code %} and {@code _} never reach ILIKE). At most 8 words.
     */
    public static List<String> words(String text) {
        if (text == null) {
            return List.of();
        }
        return java.util.Arrays.stream(text.split("[^\\p{L}\\p{N}]+")).filter(word -> !word.isEmpty()).limit(8)
                .toList();
    }
}
