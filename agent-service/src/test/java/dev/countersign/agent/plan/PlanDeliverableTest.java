package dev.countersign.agent.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.countersign.agent.plan.PlanDeliverable.Refusal;
import dev.countersign.agent.plan.PlanDeliverable.Shortfall;
import dev.countersign.agent.plan.PlanDeliverable.Statement;
import dev.countersign.agent.plan.SchemaInventory.Column;
import dev.countersign.agent.plan.SchemaInventory.Scope;
import dev.countersign.agent.plan.SchemaInventory.Table;
import dev.countersign.contracts.events.PlanStatementDrafted.Guard;

/** The one reader of a plan turn's deliverable, the guard and the identifier check, on the seed's review cases. */
class PlanDeliverableTest {

    static final SchemaInventory INVENTORY = new SchemaInventory(List.of(
            new Table("public", "transactions", "table", 1200.0, Scope.TENANT, List.of(
                    new Column("id", "uuid", true, null, null),
                    new Column("wallet_id", "uuid", true, null, null),
                    new Column("amount", "numeric(14,2)", true, null, null),
                    new Column("category", "text", true, null, null),
                    new Column("occurred_on", "date", true, null, null)), List.of("id"),
                    List.of("(wallet_id) references public.wallets (id)")),
            new Table("public", "wallets", "table", 40.0, Scope.TENANT, List.of(
                    new Column("id", "uuid", true, null, null),
                    new Column("name", "text", true, null, null)), List.of("id"), List.of()),
            new Table("public", "we\"ird", "table", null, Scope.TABLE, List.of(
                    new Column("Mixed Case", "text", false, null, null)), List.of(), List.of())));

    private static PlanDeliverable.Reading read(String reply) {
        return PlanDeliverable.read(reply, INVENTORY);
    }

    private static Statement statement(String sql) {
        return (Statement) read("```postgresql\n" + sql + "\n```\nWhy: because.");
    }

    @Test
    void oneFencedPostgresqlStatementWithItsRationaleIsAStatement() {
        var reading = read("""
                Here it is.
                ```postgresql
                SELECT category, sum(amount) AS total FROM transactions GROUP BY category ORDER BY total DESC;
                ```
                It sums each category's amounts; row-level security keeps it to your rows.""");

        assertThat(reading).isInstanceOf(Statement.class);
        Statement statement = (Statement) reading;
        assertThat(statement.verdict()).isEqualTo("statement");
        assertThat(statement.sql()).startsWith("SELECT category").endsWith("DESC;");
        assertThat(statement.rationale()).startsWith("It sums each category's amounts");
        assertThat(statement.guard().singleSelect()).isTrue();
        assertThat(statement.validation().tables()).containsExactly("transactions");
        assertThat(statement.validation().clean()).isTrue();
    }

    @Test
    void aMarkerWithWhatIsMissingIsARefusalAndItsQuestionIsKept() {
        var reading = read("""
                **NO STATEMENT:** the inventory has no table of film rentals or actors. Which table records the
                rentals you mean?""");

        assertThat(reading).isInstanceOf(Refusal.class);
        assertThat(((Refusal) reading).missing()).startsWith("the inventory has no table of film rentals");
        assertThat(((Refusal) reading).question()).isEqualTo("Which table records the rentals you mean?");
    }

    @Test
    void aRefusalNeedsNoQuestionMarkOnlySubstance() {
        assertThat(read("NO STATEMENT: Tell me which column records the rental price.")).isInstanceOf(Refusal.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"NO STATEMENT:", "NO STATEMENT:   ", "NO STATEMENT: ?",
            "I thought about it.\nNO STATEMENT: n/a"})
    void aBareMarkerIsNotARefusal(String reply) {
        assertThat(read(reply)).isInstanceOf(Shortfall.class).extracting(r -> ((Shortfall) r).reason())
                .asString().contains("bare NO STATEMENT");
    }

    @Test
    void aBareMarkerDoesNotHideARealStatementBesideIt() {
        assertThat(read("NO STATEMENT:\n```postgresql\nSELECT id FROM wallets\n```")).isInstanceOf(Statement.class);
    }

    @Test
    void aMarkerInsideAFenceIsNotARefusal() {
        var reading = read("""
                An example of the refusal format:
                ```text
                NO STATEMENT: the schema has no rentals table at all, so which one?
                ```""");

        assertThat(reading).isInstanceOf(Shortfall.class);
    }

    @Test
    void aLectureIsAShortfallHoweverLong() {
        var reading = read("""
                1. First I would inspect the tables to see which hold sales.
                2. Then I would look at the columns that record amounts and dates.
                3. Then I would join them and compare periods, checking for nulls.
                4. Finally I would validate the results against a known total.""".repeat(5));

        assertThat(reading.verdict()).isEqualTo("shortfall");
        assertThat(((Shortfall) reading).reason()).contains("Neither a statement");
    }

    @Test
    void aFenceForAnotherEngineIsNotADeliverable() {
        var reading = read("```mysql\nSELECT `category` FROM transactions LIMIT 10\n```\nThis lists categories.");

        assertThat(reading).isInstanceOf(Shortfall.class);
        assertThat(((Shortfall) reading).reason()).contains("mysql").contains("another engine");
    }

    @Test
    void aFenceForAnotherEngineDoesNotHideThePostgresqlOne() {
        var reading = read("""
                ```tsql
                SELECT TOP 5 category FROM transactions
                ```
                ```postgresql
                SELECT category FROM transactions LIMIT 5
                ```
                The PostgreSQL form.""");

        assertThat(reading).isInstanceOf(Statement.class);
        assertThat(((Statement) reading).sql()).isEqualTo("SELECT category FROM transactions LIMIT 5");
    }

    @Test
    void anUntaggedOrSqlFenceIsNotTheDeliverableAndTheShortfallSaysWhy() {
        assertThat(((Shortfall) read("```sql\nSELECT 1\n```")).reason()).contains("postgresql fence");
    }

    @Test
    void twoPostgresqlFencesAreNotExactlyOneStatement() {
        assertThat(read("```postgresql\nSELECT 1\n```\nor\n```postgresql\nSELECT 2\n```"))
                .isInstanceOf(Shortfall.class);
    }

    @Test
    void anUnknownTableAndAnUnknownColumnAreReported() {
        Statement statement = statement(
                "SELECT t.amount, t.amout, rentals.film FROM transactions t JOIN rentals ON rentals.id = t.id");

        assertThat(statement.validation().unknownTables()).containsExactly("rentals");
        assertThat(statement.validation().unknownColumns()).containsExactly("t.amout");
        assertThat(statement.validation().clean()).isFalse();
        // An invented relation is no deliverable: the verdict does not pass it.
        assertThat(statement.verdict()).isEqualTo("shortfall");
        assertThat(statement("SELECT amount FROM transactions").verdict()).isEqualTo("statement");
    }

    @Test
    void anUnqualifiedUnknownColumnIsReportedWhenEveryTableIsKnown() {
        Statement statement = statement("SELECT categroy, count(*) AS n FROM transactions GROUP BY 1 ORDER BY n");

        assertThat(statement.validation().unknownColumns()).containsExactly("categroy");
    }

    @Test
    void quotedIdentifiersWithDoubledQuotesAndAliasesAreResolved() {
        Statement statement = statement("""
                SELECT w."name", x."Mixed Case", count(*) AS "n"
                FROM "transactions" AS "t", wallets w, "we""ird" x
                WHERE t.wallet_id = w.id AND "t"."amount" > 0
                GROUP BY 1, 2""");

        assertThat(statement.validation().tables()).containsExactly("\"transactions\"", "wallets", "\"we\"\"ird\"");
        assertThat(statement.validation().unknownTables()).isEmpty();
        assertThat(statement.validation().unknownColumns()).isEmpty();
    }

    @Test
    void aQuotedNameIsCaseSensitiveAndAnUnquotedOneIsFolded() {
        Statement statement = statement("SELECT \"Amount\", AMOUNT FROM TRANSACTIONS");

        assertThat(statement.validation().unknownTables()).isEmpty();
        assertThat(statement.validation().unknownColumns()).containsExactly("\"Amount\"");
    }

    @Test
    void fromOnlyCtesWithColumnListsAndSchemaQualifiedNamesAreRead() {
        Statement statement = statement("""
                WITH monthly (month_start, total) AS (
                    SELECT date_trunc('month', occurred_on), sum(amount) FROM ONLY public.transactions GROUP BY 1)
                SELECT m.month_start, m.total, extract(year from m.month_start) AS y
                FROM monthly m
                WHERE m.total IS DISTINCT FROM 0""");

        assertThat(statement.validation().tables()).containsExactly("public.transactions");
        assertThat(statement.validation().unknownTables()).isEmpty();
        assertThat(statement.validation().unknownColumns()).isEmpty();
        assertThat(statement.guard().singleSelect()).isTrue();
    }

    @Test
    void fromOnlyWithAnUnknownTableIsStillReported() {
        assertThat(statement("SELECT * FROM ONLY payments").validation().unknownTables())
                .containsExactly("payments");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "DELETE FROM transactions WHERE amount < 0",
            "UPDATE wallets SET name = 'x'",
            "WITH gone AS (DELETE FROM transactions RETURNING id) SELECT count(*) FROM gone",
            "SELECT id FROM wallets FOR UPDATE",
            "SELECT * INTO copy_of_wallets FROM wallets",
            "SELECT 1; SELECT 2",
            "SELECT nextval('some_sequence')",
            "SELECT id FROM wallets WHERE id = $1",
            "SELECT 'unterminated FROM wallets",
            // A setting the tenant's row-level security is keyed on, changed from inside the statement: quoted,
            // qualified, hidden in a lateral subquery, or run as SQL text; none is an allowed function.
            "SELECT t.* FROM (SELECT \"set_config\"('countersign.tenant_id', 'victim', true) AS v OFFSET 0) s,"
                    + " LATERAL (SELECT * FROM transactions WHERE s.v IS NOT NULL) t",
            "SELECT pg_catalog.\"set_config\"('countersign.tenant_id', 'victim', true)",
            "SELECT set_config('work_mem', '2GB', false)",
            "SELECT * FROM ts_stat('SELECT to_tsvector(set_config(''countersign.tenant_id'', ''victim'', true))')",
            "SELECT * FROM pg_stat_get_activity(NULL)",
            "SELECT repeat('x', 100000000) FROM wallets",
            "SELECT public.anything(1)",
            "SELECT U&\"\\0073et_config\"('a', 'b', true)",
            "TABLE wallets",
            "SELECT * FROM wallets, TABLE transactions",
            "SELECT 1 --\r; DELETE FROM wallets",
            "SELECT 1; -- a note",
            "SELECT * FROM wallets w(a, b)"})
    void aStatementThatIsNotOneReadOnlySelectIsClassifiedSoWithTheGuardsReason(String sql) {
        Guard guard = StatementGuard.classify(sql);

        assertThat(guard.singleSelect()).as(sql).isFalse();
        assertThat(guard.reason()).startsWith("Not classified as a single read-only SELECT.")
                .doesNotContain("will delete").doesNotContain("can delete your data");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT 'delete from wallets; update' AS note, \"update\" FROM wallets",
            "select id -- DELETE FROM wallets\nfrom wallets;",
            "SELECT $$ INSERT INTO x $$ AS text",
            "/* DROP TABLE wallets /* nested */ */ SELECT 1",
            "(SELECT 1) UNION (SELECT 2)",
            "SELECT \"sum\"(amount), pg_catalog.max(amount), round(avg(amount)::numeric(10, 2), 2) FROM transactions;",
            "SELECT category, count(*) FILTER (WHERE amount > 10) OVER (PARTITION BY wallet_id) FROM transactions",
            "SELECT date_trunc('month', occurred_on) AS m, CAST(sum(amount) AS numeric(12, 2)) FROM transactions"
                    + " WHERE category IN ('coffee') AND EXISTS (SELECT 1 FROM wallets) GROUP BY 1"})
    void keywordsInStringsCommentsAndQuotedNamesDoNotTripTheGuard(String sql) {
        assertThat(StatementGuard.classify(sql).singleSelect()).as(sql).isTrue();
    }

    @Test
    void aWriteStatementIsStillTheDeliverableButNotReadOnly() {
        Statement statement = statement("DELETE FROM transactions WHERE category = 'coffee'");

        assertThat(statement.guard().singleSelect()).isFalse();
        assertThat(statement.guard().reason()).contains("DELETE");
    }

    @Test
    void estimatesAreLabelledANegativeDistinctIsDerivedOnlyAgainstARowEstimateAndUnanalysedIsUnknown() {
        Table analysed = new Table("public", "rates", "table", 200.0, Scope.TABLE,
                List.of(new Column("code", "text", true, 0.0, -1.0), new Column("kind", "text", false, 0.25, 3.0)),
                List.of(), List.of());
        Table unanalysed = new Table("public", "fresh", "table", null, Scope.TABLE,
                List.of(new Column("code", "text", true, null, -0.5)), List.of(), List.of());
        String text = new SchemaInventory(List.of(analysed, unanalysed)).render();

        assertThat(text).contains("about 200 (planner estimate, not a count)")
                .contains("distinct values ~200 (estimate, derived: 100.0% of the row estimate)")
                .contains("nulls ~25.0% (estimate); distinct values ~3 (estimate)")
                .contains("relation public.fresh - rows: UNKNOWN (never analysed: this is NOT an empty table");
        assertThat(SchemaInventory.statistics(unanalysed, unanalysed.columns().get(0)))
                .isEqualTo("distinct values: 50.0% of the rows (estimate; the row count is unknown)");
        assertThat(new SchemaInventory(List.of(analysed, unanalysed)).sizeUnknown()).isEqualTo(1);
    }

    @Test
    void aZeroDistinctIsUnknownAndAnEstimateUnderRowLevelSecurityNotKeyedOnTheTenantIsWithheld() {
        Table shared = new Table("public", "ledger", "table", 5000.0, Scope.WITHHELD,
                List.of(new Column("note", "json", false, 1.0, 0.0)), List.of(), List.of());
        String text = new SchemaInventory(List.of(shared)).render();

        assertThat(text).contains("relation public.ledger - rows: UNKNOWN (withheld").doesNotContain("5000")
                .contains("(no column statistics: PostgreSQL withholds them under row-level security)");
        assertThat(SchemaInventory.statistics(shared, shared.columns().get(0)))
                .contains("distinct values unknown").doesNotContain("~0 ");
    }

    @Test
    void aTenantsEstimateIsLabelledAsItsOwnRowsAndWithoutOneTheSizeIsUnknownNotZero() {
        Table estimated = new Table("public", "transactions", "table", 19.6, Scope.TENANT,
                List.of(new Column("id", "uuid", true, 0.0, -1.0), new Column("category", "text", true, 0.0, 7.0)),
                List.of(), List.of());
        Table unknown = new Table("public", "wallets", "table", null, Scope.TENANT,
                List.of(new Column("id", "uuid", true, null, null)), List.of(), List.of());
        String text = new SchemaInventory(List.of(estimated, unknown)).render();

        assertThat(text)
                .contains("relation public.transactions - rows: about 20 of your tenant's rows (planner estimate,"
                        + " not a count)")
                .contains("id uuid not null [nulls ~0.0% (estimate); distinct values ~20 (estimate, derived:")
                .contains("category text not null [nulls ~0.0% (estimate); distinct values ~7 (estimate)]")
                .contains("(column statistics are estimates over all tenants' rows of this table; the row estimate is"
                        + " your tenant's own)")
                .contains("relation public.wallets - rows: UNKNOWN (no statistics for your tenant's rows: this is NOT"
                        + " an empty table")
                .doesNotContain("withheld").doesNotContain("about 0");
        assertThat(new SchemaInventory(List.of(estimated, unknown)).sizeUnknown()).isEqualTo(1);
    }
}
