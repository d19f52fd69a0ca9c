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
 * <li>"how much did I spend", "show my transactions in Checking" - reads recent transactions</li>
 * <li>"list my wallets" - reads wallets</li>
 * <li>"delete the last transaction", "draft a training plan", "email the requestor" - used when the agent offers a tool
 * for them; otherwise it says that this build has no such tool</li>
 * </ul>
 * Every text it produces starts with {@link #LABEL}. It is not a language model and does not pretend to be one.
 */
public final class DemoModel implements ModelBrain {

    public static final String LABEL = "[demo model]";

    private static final Pattern ADD_EXPENSE = Pattern.compile(
            "add (?:an? )?(\\d+(?:[.,]\\d{1,2})?) ([\\p{L} ]+?) expense(?: to| in| on) (?:my )?(?:wallet )?([\\p{L}\\d ]+?)[.!]?$",
            Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    private static final Pattern RENAME_WALLET = Pattern.compile(
            "rename (?:my )?(?:wallet )?([\\p{L}\\d ]+?) (?:wallet )?to ([\\p{L}\\d ]+?)[.!]?$",
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

        Matcher expense = ADD_EXPENSE.matcher(text);
        if (expense.find() && turn.offersTool("propose_expense")) {
            return call("propose_expense", "walletName", expense.group(3).strip(),
                    "amount", expense.group(1).replace(',', '.'),
                    "category", expense.group(2).strip().toLowerCase(Locale.ROOT),
                    "description", capitalise(expense.group(2).strip()),
                    "occurredOn", LocalDate.now().toString());
        }
        Matcher rename = RENAME_WALLET.matcher(text);
        if (rename.find() && turn.offersTool("rename_wallet")) {
            return call("rename_wallet", "walletName", rename.group(1).strip(),
                    "newName", rename.group(2).strip());
        }
        Matcher transactionsIn = TRANSACTIONS_IN.matcher(text);
        if (transactionsIn.find() && turn.offersTool("recent_transactions")) {
            return call("recent_transactions", "walletName",
                    transactionsIn.group(1).strip());
        }
        if ((lower.contains("spend") || lower.contains("spent") || lower.contains("transactions"))
                && turn.offersTool("recent_transactions")) {
            return call("recent_transactions", "walletName", "");
        }
        if (lower.contains("wallet") && turn.offersTool("list_wallets")) {
            return call("list_wallets");
        }
        if (lower.contains("delete") && lower.contains("transaction")) {
            return toolOrExplain(turn, "propose_delete_last_transaction", "delete a transaction");
        }
        if (lower.contains("training plan")) {
            return toolOrExplain(turn, "draft_training_plan", "draft a training plan");
        }
        if (lower.contains("email") && lower.contains("requestor")) {
            return toolOrExplain(turn, "propose_email_requestor", "email a requestor");
        }
        return ModelReply.text(LABEL + " I am the offline demo model and only understand a few requests: "
                + "\"add a 12.50 coffee expense to Checking\", \"rename wallet Checking to Everyday\", "
                + "\"how much did I spend?\", \"list my wallets\". Set OPENAI_BASE_URL to use a real model.");
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

    private static ModelReply toolOrExplain(ModelTurn turn, String tool, String what) {
        if (turn.offersTool(tool)) {
            return call(tool);
        }
        return ModelReply.text(LABEL + " This build of the agent has no tool to " + what + "; nothing was done.");
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
