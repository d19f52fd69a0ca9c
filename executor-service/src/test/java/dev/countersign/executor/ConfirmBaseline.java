package dev.countersign.executor;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

import dev.countersign.contracts.Topics;
import dev.countersign.contracts.events.ActionExecuted;
import dev.countersign.contracts.events.ActionOutcome;
import dev.countersign.executor.action.ActionRepository;
import dev.countersign.executor.db.TenantTransactions;
import dev.countersign.executor.execution.ActionExecution;
import dev.countersign.executor.kinds.ledger.transaction.create.CreateTransactionKind;
import dev.countersign.executor.outbox.OutboxWriter;

/**
 * The SQL baseline of the confirm benchmark ({@code deploy/bench/confirm-baseline.sql}), written from the executor's
 * own statements for a person's HTTP confirm of a LOW {@code ledger.transaction.create}: the constants the executor
 * runs, in the order it runs them, each with its {@code $n} placeholders replaced by the value the executor binds
 * there.
 * <p>
 * Two forms: the statements one by one (the benchmark runs them over JDBC, one round trip each, as the executor does),
 * and one PL/pgSQL function {@code bench_confirm} doing the same work in one round trip: the database's best case for
 * the same work. In the function the savepoint is a block with an exception handler (PL/pgSQL's subtransaction; a
 * {@code SAVEPOINT} statement is not allowed there), the ledger parameters come out of the stored {@code params}
 * (CreateTransactionKind reads the same keys) and the event is built with {@code jsonb_build_object} under the names of
 * {@link ActionExecuted}'s fields (OutcomeEvents.executed fills the same ones).
 * <p>
 * Not in it, as they do not run for this confirm: ProcessedEvents (an HTTP confirm has no event id), SeparationOfDuties
 * (only HIGH reads the approval policy), EarnedTrust (only MEDIUM counts), the refusal paths.
 */
final class ConfirmBaseline {

    /** The statements, in the executor's order; the keys name them in the file. */
    static Map<String, String> statements() {
        Map<String, String> statements = new LinkedHashMap<>();
        statements.put("settings", TenantTransactions.SETTINGS);
        statements.put("lock_for_person", ActionRepository.LOCK_FOR_PERSON);
        statements.put("confirm", ActionRepository.CONFIRM);
        statements.put("savepoint", ActionExecution.SET_SAVEPOINT);
        statements.put("insert_transaction", CreateTransactionKind.INSERT);
        statements.put("mark_executed", ActionRepository.MARK_EXECUTED);
        statements.put("append_outbox", OutboxWriter.APPEND);
        return statements;
    }

    static String file() {
        StringBuilder file = new StringBuilder();
        file.append(
                """
                        -- The confirm benchmark's SQL baseline (deploy/local-stack ConfirmThroughputBenchmark). Generated from the
                        -- executor's own statements by executor-service's ConfirmBaselineSqlTest, which fails when this file differs
                        -- from what it would write: after changing a statement of the confirm path, run
                        --   ./mvnw -pl shared-contracts,shared-web,deploy/dev-support,executor-service verify -DskipITs \\
                        --     -Dtest=ConfirmBaselineSqlTest -Dsurefire.failIfNoSpecifiedTests=false -Dcountersign.baseline.write=true
                        -- Do not edit by hand.

                        """);
        statements().forEach((name, sql) -> file.append("-- statement: ").append(name).append('\n').append(sql)
                .append(";\n\n"));
        file.append("-- function: one round trip for the same work\n").append(function()).append('\n');
        return file.toString();
    }

    /** The function: the statements above, in order, each bound to the function's arguments and locals. */
    static String function() {
        List<String> body = new ArrayList<>();
        body.add(perform(bind(TenantTransactions.SETTINGS, "p_tenant", "p_user", "'http'", "''")));
        body.add(into(bind(ActionRepository.LOCK_FOR_PERSON, "p_action", "p_tenant"), "v_action"));
        body.add(into(bind(ActionRepository.CONFIRM, "p_action", "p_tenant", "v_token", "p_user"), "v_action"));
        String insert = into(bind(CreateTransactionKind.INSERT, "p_transaction", "p_tenant", "v_wallet",
                "v_amount", "v_category", "v_description", "v_occurred_on", "p_action"), "v_written");
        String markExecuted = into(bind(ActionRepository.MARK_EXECUTED, "p_action", "v_result"), "v_action");
        String append = bind(OutboxWriter.APPEND, "p_event", "p_tenant", literal(Topics.ACTIONS_OUTCOMES),
                "p_action::text", "v_payload", "v_action.requested_by", "v_action.conversation_id",
                literal(ActionExecuted.class.getSimpleName()), "v_action.executed_at") + ";";
        return """
                CREATE OR REPLACE FUNCTION bench_confirm(p_tenant text, p_user text, p_action uuid, p_transaction uuid,
                                                         p_event uuid) RETURNS boolean
                    LANGUAGE plpgsql AS $function$
                DECLARE
                    v_token text;
                    v_action record;
                    v_written record;
                    v_wallet uuid;
                    v_amount numeric;
                    v_category text;
                    v_description text;
                    v_occurred_on date;
                    v_result text;
                    v_payload text;
                BEGIN
                %s
                %s
                    IF NOT FOUND THEN RETURN false; END IF;
                    v_token := v_action.token_hash;
                %s
                    IF NOT FOUND THEN RETURN false; END IF;
                    v_wallet := (v_action.params::jsonb ->> 'walletId')::uuid;
                    v_amount := (v_action.params::jsonb ->> 'amount')::numeric;
                    v_category := v_action.params::jsonb ->> 'category';
                    v_description := v_action.params::jsonb ->> 'description';
                    v_occurred_on := (v_action.params::jsonb ->> 'occurredOn')::date;
                    BEGIN -- the savepoint
                %s
                        IF NOT FOUND THEN RETURN false; END IF;
                    EXCEPTION WHEN others THEN
                        RETURN false;
                    END;
                    v_result := jsonb_build_object('transactionId', v_written.id, 'walletId', v_written.wallet_id,
                                                   'amount', v_written.amount, 'version', v_written.version)::text;
                %s
                    IF NOT FOUND THEN RETURN false; END IF;
                    v_payload := %s::text;
                %s
                    RETURN true;
                END;
                $function$;
                """.formatted(indent(body.get(0), 1), indent(body.get(1), 1), indent(body.get(2), 1),
                indent(insert, 2), indent(markExecuted, 1), event(), indent(append, 1));
    }

    /** ActionExecuted as OutcomeEvents.executed fills it, field by field. */
    private static String event() {
        Map<String, String> values = Map.ofEntries(Map.entry("eventId", "p_event"),
                Map.entry("schemaVersion", String.valueOf(ActionExecuted.SCHEMA_VERSION)),
                Map.entry("occurredAt", "v_action.executed_at"), Map.entry("actionId", "p_action"),
                Map.entry("tenantId", "p_tenant"), Map.entry("userId", "v_action.requested_by"),
                Map.entry("conversationId", "v_action.conversation_id"), Map.entry("kind", "v_action.kind"),
                Map.entry("summary", "v_action.summary"), Map.entry("confirmedBy", "v_action.confirmed_by"),
                Map.entry("result", "v_result::jsonb"));
        List<String> pairs = new ArrayList<>();
        // The type id Jackson writes first (ActionOutcome's @JsonTypeInfo and @JsonSubTypes).
        String typeProperty = ActionOutcome.class.getAnnotation(JsonTypeInfo.class).property();
        String typeName = Arrays.stream(ActionOutcome.class.getAnnotation(JsonSubTypes.class).value())
                .filter(type -> type.value() == ActionExecuted.class).findFirst().orElseThrow().name();
        pairs.add(literal(typeProperty) + ", " + literal(typeName));
        for (RecordComponent field : ActionExecuted.class.getRecordComponents()) {
            String value = values.get(field.getName());
            if (value == null) {
                throw new IllegalStateException("ActionExecuted." + field.getName() + " has no value in the baseline");
            }
            pairs.add(literal(field.getName()) + ", " + value);
        }
        return "jsonb_build_object(" + String.join(", ", pairs) + ")";
    }

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$(\\d+)");

    /** {@code sql} with each {@code $n} replaced by {@code values[n - 1]}; every value must be used. */
    static String bind(String sql, String... values) {
        boolean[] used = new boolean[values.length];
        Matcher matcher = PLACEHOLDER.matcher(sql);
        StringBuilder bound = new StringBuilder();
        while (matcher.find()) {
            int n = Integer.parseInt(matcher.group(1));
            used[n - 1] = true;
            matcher.appendReplacement(bound, Matcher.quoteReplacement(values[n - 1]));
        }
        matcher.appendTail(bound);
        for (int i = 0; i < used.length; i++) {
            if (!used[i]) {
                throw new IllegalArgumentException("$" + (i + 1) + " does not occur in " + sql);
            }
        }
        return bound.toString();
    }

    private static String perform(String select) {
        if (!select.startsWith("SELECT ")) {
            throw new IllegalArgumentException("not a SELECT: " + select);
        }
        return "PERFORM " + select.substring("SELECT ".length()) + ";";
    }

    private static String into(String sql, String target) {
        return sql + " INTO " + target + ";";
    }

    private static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    private static String indent(String text, int levels) {
        String pad = "    ".repeat(levels);
        return pad + text.replace("\n", "\n" + pad);
    }

    private ConfirmBaseline() {
    }
}
