package dev.countersign.agent.tools.read;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.ledger.LedgerReader;
import dev.countersign.agent.ledger.LedgerReader.Period;
import dev.countersign.agent.ledger.LedgerReader.SpendingLine;
import dev.countersign.agent.ledger.LedgerReader.SpendingQuery;
import dev.countersign.agent.tools.AgentTool;
import dev.countersign.agent.tools.Schemas;
import dev.countersign.agent.tools.ToolArguments;
import dev.countersign.agent.turn.TurnScope;
import dev.langchain4j.agent.tool.ToolSpecification;

/** Spending totals per period and category, computed by the database. */
@ApplicationScoped
public class SpendingSummaryTool implements AgentTool {

    private static final List<String> PERIODS = Arrays.stream(Period.values())
            .map(p -> p.name().toLowerCase(Locale.ROOT)).toList();
    private static final List<String> ARGUMENTS = List.of("period", Schemas.WALLET, Schemas.CATEGORY, "from", "to");

    private final LedgerReader ledger;

    public SpendingSummaryTool(LedgerReader ledger) {
        this.ledger = ledger;
    }

    @Override
    public String name() {
        return "spending_summary";
    }

    @Override
    public ToolSpecification specification(TurnScope scope) {
        var schema = Schemas.object().addEnumProperty("period", PERIODS, "Group totals by this period.");
        Schemas.wallet(schema, scope, "Only this wallet; omit for all wallets.");
        Schemas.category(schema, scope, "Only this category; omit for all.");
        Schemas.date(schema, "from", "The earliest day, inclusive.");
        Schemas.date(schema, "to", "The latest day, inclusive.");
        return Schemas.tool(name(), "Total spending per period and category, newest period first.",
                schema.required("period").build());
    }

    @Override
    public String call(ToolArguments arguments, TurnScope scope) {
        arguments.onlyDeclared(ARGUMENTS);
        Period period = Period.valueOf(arguments.oneOf("period", PERIODS)
                .orElseThrow(() -> new dev.countersign.agent.tools.ArgumentRefused("period is required, one of "
                        + PERIODS))
                .toUpperCase(Locale.ROOT));
        SpendingQuery query = new SpendingQuery(period, Schemas.walletId(arguments, scope),
                arguments.oneOf(Schemas.CATEGORY, scope.categories()).orElse(null),
                arguments.date("from").orElse(null), arguments.date("to").orElse(null));
        List<SpendingLine> lines = ledger.spending(scope.conversation().person(), query);
        lines.stream().filter(line -> !scope.offersCategory(line.category())).findFirst()
                .ifPresent(line -> scope.readUntrustedText("a spending category written by someone else"));
        String leftOut = LedgerReader
                .leftOut(ledger.unconfirmed(scope.conversation().person(), query.walletId(), query.category(),
                        query.from(), query.to()));
        if (lines.isEmpty()) {
            return "No spending in that range." + leftOut;
        }
        String table = lines.stream().map(l -> "- %s %s: %s %s (%d transactions)".formatted(l.periodStart(),
                l.category(), l.total(), l.currency(), l.transactions())).collect(Collectors.joining("\n"));
        String capped = lines.size() == LedgerReader.MAX_SUMMARY_ROWS
                ? "\n(Only the first %d rows; narrow the range for more.)".formatted(LedgerReader.MAX_SUMMARY_ROWS)
                : "";
        return "Spending per %s (period start, category: total):\n%s%s%s".formatted(
                period.name().toLowerCase(Locale.ROOT), table, capped, leftOut);
    }
}
