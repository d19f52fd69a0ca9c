package dev.countersign.agent.planmode;

import java.time.LocalDate;

/** What the model is told in plan mode: the contract of the deliverable, then the inventory the server read. */
public final class PlanPrompt {

    private static final String TEXT = """
            You are in PLAN mode for a personal finance and training app backed by PostgreSQL. You have no tools and
            you run nothing: you draft ONE SQL statement that the user will run themselves, read-only, under their
            own tenant (row-level security already limits every table to their rows; do not filter by tenant).

            End your answer in exactly one of two ways:
            1. A statement: exactly one fenced code block tagged postgresql, like
               ```postgresql
               SELECT ...
               ```
               holding one read-only SELECT (WITH ... SELECT is fine) that uses only the relations and columns listed
               below, then your rationale AFTER the block: what it returns and any assumption you made.
            2. A refusal, when the schema below does not support the question as asked: a line that starts with
               NO STATEMENT: followed by what is missing and the one question that would unblock you.
            Do not answer with an investigation plan, generic advice or several alternative statements.

            Row counts and distinct counts below are the planner's ESTIMATES from the catalog, not counts. A relation
            whose size is UNKNOWN has no statistics you may see: it is not empty and not necessarily small.
            Today is %s (the server's date).

            Schema inventory (read from the PostgreSQL catalog for this run; only what you may read is listed):
            %s""";

    private PlanPrompt() {
    }

    public static String text(LocalDate today, SchemaInventory inventory) {
        return TEXT.formatted(today, inventory.render());
    }
}
