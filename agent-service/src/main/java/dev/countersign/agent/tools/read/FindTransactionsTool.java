package dev.countersign.agent.tools.read;

import java.util.List;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import dev.countersign.agent.ledger.LedgerReader;
import dev.countersign.agent.ledger.LedgerReader.TransactionQuery;
import dev.countersign.agent.ledger.TransactionLine;
import dev.countersign.agent.tools.AgentTool;
import dev.countersign.agent.tools.Schemas;
import dev.countersign.agent.tools.ToolArguments;
import dev.countersign.agent.turn.TurnScope;
import dev.langchain4j.agent.tool.ToolSpecification;

/** Transactions, newest first, filtered by wallet, category, date range and a text search. */
@ApplicationScoped
public class FindTransactionsTool implements AgentTool {

    private static final List<String> ARGUMENTS = List.of(Schemas.WALLET, Schemas.CATEGORY, "from", "to", "text",
            "limit");

    private final LedgerReader ledger;

    public FindTransactionsTool(LedgerReader ledger) {
        this.ledger = ledger;
    }

    @Override
    public String name() {
        return "find_transactions";
    }

    @Override
    public ToolSpecification specification(TurnScope scope) {
        var schema = Schemas.object();
        Schemas.wallet(schema, scope, "Only this wallet; omit for all wallets.");
        Schemas.category(schema, scope, "Only this category; omit for all.");
        Schemas.date(schema, "from", "The earliest day, inclusive; omit for no lower bound.");
        Schemas.date(schema, "to", "The latest day, inclusive; omit for no upper bound.");
        schema.addStringProperty("text",
                "Words that must all appear in the note or category; only letters and digits count.");
        schema.addIntegerProperty("limit", "How many to return, 1 to %d; 20 if omitted."
                .formatted(LedgerReader.MAX_TRANSACTIONS));
        return Schemas.tool(name(), "Find the user's transactions, newest first, with their ids.", schema.build());
    }

    @Override
    public String call(ToolArguments arguments, TurnScope scope) {
        arguments.onlyDeclared(ARGUMENTS);
        TransactionQuery query = new TransactionQuery(Schemas.walletId(arguments, scope),
                arguments.oneOf(Schemas.CATEGORY, scope.categories()).orElse(null),
                arguments.date("from").orElse(null), arguments.date("to").orElse(null),
                LedgerReader.words(arguments.text("text").orElse(null)),
                arguments.integer("limit", 1, LedgerReader.MAX_TRANSACTIONS).orElse(20));
        List<TransactionLine> lines = ledger.transactions(scope.tenantId(), scope.userId(), query);
        lines.stream().filter(line -> !line.ownText()).findFirst()
                .ifPresent(line -> scope.readUntrustedText("transaction " + line.id() + " written by someone else"));
        String leftOut = LedgerReader
                .leftOut(ledger.unconfirmed(scope.conversation().person(), query.walletId(), query.category(),
                        query.from(), query.to()));
        if (lines.isEmpty()) {
            return "No transactions match." + leftOut;
        }
        return lines.stream().map(t -> "- %s %s %s in %s (%s%s), id %s".formatted(t.occurredOn(), t.amount(),
                t.currency(), scope.labelOf(t.walletId()), t.category(),
                t.description() == null ? "" : ": " + t.description(),
                t.id())).collect(Collectors.joining("\n", "Transactions (newest first):\n", leftOut));
    }
}
