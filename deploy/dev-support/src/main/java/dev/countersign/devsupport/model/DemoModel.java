package dev.countersign.devsupport.model;

import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.countersign.contracts.json.Json;

/**
 * The offline demo model: a few regular expressions that turn a small set of requests into tool calls, so a newcomer
 * sees the whole flow without an API key. It understands (case-insensitive):
 * <ul>
 * <li>"add a 12.50 coffee expense to Checking" - proposes an expense</li>
 * <li>"rename wallet Checking to Everyday" - proposes a rename</li>
 * <li>"how much did I spend" - a monthly spending summary; "show my transactions (in Checking)" - finds them</li>
 * <li>"list my wallets", "what is pending?", "what is my training?" - reads</li>
 * <li>"draft a training plan" - proposes a fixed demo plan; "delete transaction &lt;uuid&gt;" - proposes deleting
 * it</li>
 * </ul>
 * In plan mode it answers "how much did I spend per category?" with a statement and anything else with an explicit
 * refusal. Every text it produces starts with {@link #LABEL}. It is not a language model and does not pretend to be
 * one.
 */
public final class DemoModel implements ModelBrain {

    public static final String LABEL = "[demo model]";

    private static final Pattern ADD_EXPENSE = Pattern.compile(
            "add (?:an? )?(\\d+(?:[.,]\\d{1,2})?) ([\\p{L} ]+?) expense(?: to| in| on) (?:my )?(?:wallet )?([\\p{L}\\d ]+?)[.!]?$",
            Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    private static final Pattern RENAME_WALLET = Pattern.compile(
            "rename (?:my )?(?:wallet )?([\\p{L}\\d ]+?) (?:wallet )?to ([\\p{L}\\d ]+?)[.!]?$",
            Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    private static final Pattern DELETE_TRANSACTION = Pattern.compile(
            "delete (?:the )?transaction ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern EMAIL_REQUESTOR = Pattern.compile(
            "email the requestor of case ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}): (.+)$",
            Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    private static final Pattern OPEN_TICKET = Pattern.compile("open a ticket: (.+)$",
            Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    private static final Pattern TRANSACTIONS_IN = Pattern.compile(
            "transactions (?:in|of|for) (?:my )?([\\p{L}\\d ]+?)[?.!]?$",
            Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);

    @Override
    public ModelReply respond(ModelTurn turn) {
        List<String> toolResults = turn.pendingToolResults();
        if (!toolResults.isEmpty()) {
            return ModelReply.text(LABEL + " " + toolResults.stream().map(DemoModel::unquote)
                    .collect(java.util.stream.Collectors.joining("\n")));
        }
        String text = turn.lastUserText().strip();
        String lower = text.toLowerCase(Locale.ROOT);
        if (turn.systemText().contains("You are in PLAN mode")) {
            return plan(turn, lower);
        }

        Matcher expense = ADD_EXPENSE.matcher(text);
        if (expense.find() && turn.offersTool("propose_expense")) {
            return call("propose_expense", "wallet", expense.group(3).strip(),
                    "amount", expense.group(1).replace(',', '.'),
                    "category", offeredCategory(turn, expense.group(2).strip().toLowerCase(Locale.ROOT)),
                    "description", capitalise(expense.group(2).strip()),
                    "occurredOn", LocalDate.now().toString());
        }
        Matcher rename = RENAME_WALLET.matcher(text);
        if (rename.find() && turn.offersTool("propose_wallet_rename")) {
            return call("propose_wallet_rename", "wallet", rename.group(1).strip(),
                    "name", rename.group(2).strip());
        }
        Matcher email = EMAIL_REQUESTOR.matcher(text);
        if (email.find() && turn.offersTool("propose_requestor_email")) {
            return call("propose_requestor_email", "caseId", email.group(1).toLowerCase(Locale.ROOT),
                    "subject", "About your case", "body", email.group(2).strip());
        }
        Matcher ticket = OPEN_TICKET.matcher(text);
        if (ticket.find() && turn.offersTool("propose_ticket")) {
            return call("propose_ticket", "title", ticket.group(1).strip(), "description", ticket.group(1).strip());
        }
        Matcher transactionsIn = TRANSACTIONS_IN.matcher(text);
        if (transactionsIn.find() && turn.offersTool("find_transactions")) {
            return call("find_transactions", "wallet", transactionsIn.group(1).strip());
        }
        if ((lower.contains("spend") || lower.contains("spent")) && turn.offersTool("spending_summary")) {
            return call("spending_summary", "period", "month");
        }
        if (lower.contains("transactions") && turn.offersTool("find_transactions")) {
            return call("find_transactions");
        }
        if (lower.contains("wallet") && turn.offersTool("list_wallets")) {
            return call("list_wallets");
        }
        Matcher delete = DELETE_TRANSACTION.matcher(text);
        if (delete.find() && turn.offersTool("propose_transaction_delete")) {
            return call("propose_transaction_delete", "transactionId", delete.group(1).toLowerCase(Locale.ROOT));
        }
        if (lower.contains("training plan") && lower.contains("draft")
                && turn.offersTool("propose_plan_draft")) {
            return call("propose_plan_draft", "name", "Base building", "goal", "Run 10 km comfortably",
                    "startsOn", LocalDate.now().plusDays(1).toString(),
                    "schedule", "Mon: 5 km easy run\nWed: 30 min intervals\nSat: 10 km long run");
        }
        if (lower.contains("training") && turn.offersTool("training_plans")) {
            return call("training_plans");
        }
        if ((lower.contains("pending") || lower.contains("waiting")) && turn.offersTool("pending_actions")) {
            return call("pending_actions");
        }
        return ModelReply.text(LABEL + " I am the offline demo model and only understand a few requests: "
                + "\"add a 12.50 coffee expense to Checking\", \"rename wallet Checking to Everyday\", "
                + "\"how much did I spend?\", \"show my transactions\", \"list my wallets\", \"draft a training plan\","
                + " \"what is my training?\", \"what is pending?\", \"delete transaction <id>\", \"email the requestor"
                + " of case <id>: <text>\", \"open a ticket: <title>\". Set OPENAI_BASE_URL to"
                + " use a real model.");
    }

    /**
     * Plan mode (no tools): spending per category as a statement when the inventory lists the columns it needs, else an
     * explicit refusal. It reads the inventory only to check those names; it does not compose SQL.
     */
    private static ModelReply plan(ModelTurn turn, String lower) {
        String inventory = turn.systemText();
        boolean grounded = inventory.contains("relation public.transactions") && inventory.contains("  category text")
                && inventory.contains("  unconfirmed boolean") && inventory.contains("  deleted_at ");
        if (grounded && (lower.contains("spend") || lower.contains("spent") || lower.contains("categor"))) {
            return ModelReply.text(LABEL + " Spending per category and currency:\n```postgresql\n"
                    + "SELECT w.currency, t.category, sum(t.amount) AS total, count(*) AS transactions\n"
                    + "FROM transactions t JOIN wallets w ON w.id = t.wallet_id\n"
                    + "WHERE t.deleted_at IS NULL AND NOT t.unconfirmed\n"
                    + "GROUP BY w.currency, t.category\nORDER BY total DESC;\n```\n"
                    + "It sums confirmed, not deleted transactions per category, per currency (amounts in different"
                    + " currencies are not added together); row-level security keeps it to your tenant.");
        }
        return ModelReply.text(LABEL + "\nNO STATEMENT: the offline demo model drafts only one statement, spending per"
                + " category, and only when the schema lists transactions with category, unconfirmed and deleted_at."
                + " Would spending per category answer your question?");
    }

    /** Tool results may arrive JSON-encoded (a quoted string); show their text. */
    private static String unquote(String result) {
        if (result.length() >= 2 && result.startsWith("\"") && result.endsWith("\"")) {
            try {
                return Json.mapper().readValue(result, String.class);
            } catch (java.io.IOException e) {
                return result;
            }
        }
        return result;
    }

    /**
     * The word as the category if the tool offers it (its enum of the tenant's categories), else "other" when offered:
     * a model picks from the schema it is given.
     */
    private static String offeredCategory(ModelTurn turn, String word) {
        List<String> offered = turn.enumOf("propose_expense", "category");
        if (offered.isEmpty() || offered.contains(word)) {
            return word;
        }
        return offered.contains("other") ? "other" : word;
    }

    private static ModelReply call(String tool, String... namesAndValues) {
        var arguments = Json.mapper().createObjectNode();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            arguments.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return ModelReply.toolCall(tool, Json.write(arguments));
    }

    private static String capitalise(String word) {
        return word.isEmpty() ? word : Character.toUpperCase(word.charAt(0)) + word.substring(1);
    }
}
