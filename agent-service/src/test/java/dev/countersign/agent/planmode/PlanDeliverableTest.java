package dev.countersign.agent.planmode;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.countersign.agent.planmode.PlanDeliverable.Refusal;
import dev.countersign.agent.planmode.PlanDeliverable.Shortfall;
import dev.countersign.agent.planmode.PlanDeliverable.Statement;
import dev.countersign.agent.planmode.SchemaInventory.Column;
import dev.countersign.agent.planmode.SchemaInventory.Scope;
import dev.countersign.agent.planmode.SchemaInventory.Table;
import dev.countersign.contracts.events.PlanStatementDrafted.Guard;
import dev.countersign.contracts.events.PlanStatementDrafted.Validation;

/**
 * The one reader of a plan turn's deliverable, on the seed's review cases; the SQL itself is StatementAnalysisTest's.
 */
class PlanDeliverableTest {

    /** Stands in for PostgreSQL's analysis: this test is about reading the reply, StatementAnalysisTest about SQL. */
    private static final List<String> ANALYSED = new ArrayList<>();

    private static PlanDeliverable.Reading read(String reply) {
        ANALYSED.clear();
        return PlanDeliverable.read(reply, sql -> {
            ANALYSED.add(sql);
            return new StatementAnalysis.Result(new Guard(true, "runnable"),
                    new Validation(List.of("transactions"), List.of(), List.of(), "limits"), List.of());
        });
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
        assertThat(ANALYSED).as("what PostgreSQL is asked to analyse").containsExactly(statement.sql());
    }

    @Test
    void aFenceThatPostgresqlCannotReadAsOneStatementIsAShortfallNotAStatement() {
        var reading = PlanDeliverable.read("```postgresql\nSELECT total FROM <your table>\n```\nFill it in.",
                sql -> new StatementAnalysis.Result(new Guard(false, "Not run here."),
                        new Validation(List.of(), List.of(), List.of(), "limits", "42601: syntax error"), List.of()));

        assertThat(reading).isInstanceOf(Statement.class);
        assertThat(reading.verdict()).isEqualTo("shortfall");
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
