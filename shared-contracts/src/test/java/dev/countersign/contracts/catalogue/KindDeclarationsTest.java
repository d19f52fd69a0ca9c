package dev.countersign.contracts.catalogue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.Tier;
import dev.countersign.contracts.json.Json;

/**
 * The declarations are data: what they say is what the gate, the agent and the pages do. The headlines below are the
 * sentences the kinds' hand-written describers produced before the declarations replaced them (a person approves this
 * text, so it must not drift), and each loader refusal is shown on a broken declaration.
 */
class KindDeclarationsTest {

    private static final String WALLET = "6f1c0a52-7b3e-4c1d-9a0e-2f4b8c6d1e3a";
    private static final String TRANSACTION = "0b6e9d4c-3a2f-4e1b-8c7d-5a9f0e1d2c3b";
    private static final String PLAN = "9d8c7b6a-5f4e-4d3c-2b1a-0f9e8d7c6b5a";

    private static JsonNode json(String text) {
        return Json.read(text, JsonNode.class);
    }

    private static String headline(String kind, String params, Names names) {
        ValidatedParams validated = ActionCatalogue.validate(kind, json(params));
        assertThat(validated.violations()).as(kind).isEmpty();
        return validated.definition().describe(validated.normalised(), names);
    }

    @Test
    void theShippedHeadlinesReadAsBefore() {
        assertThat(headline(ShippedKinds.CREATE_TRANSACTION, """
                {"walletId":"%s","amount":"12.5","category":"coffee","occurredOn":"2026-11-29"}""".formatted(WALLET),
                Names.IDS)).isEqualTo("Add an expense of 12.50 (coffee) on 2026-11-29 to wallet " + WALLET);
        assertThat(headline(ShippedKinds.CREATE_TRANSACTION,
                """
                        {"walletId":"%s","amount":"3","category":"coffee","description":"flat white","occurredOn":"2026-11-29"}"""
                        .formatted(WALLET),
                Names.of(Map.of("wallet", Map.of(WALLET, "\"Checking\"")))))
                .isEqualTo("Add an expense of 3.00 (coffee: flat white) on 2026-11-29 to \"Checking\"");
        assertThat(headline(ShippedKinds.RENAME_WALLET, """
                {"walletId":"%s","name":"Holidays"}""".formatted(WALLET), Names.IDS))
                .isEqualTo("Rename wallet " + WALLET + " to \"Holidays\"");
        assertThat(headline(ShippedKinds.EDIT_TRANSACTION, """
                {"transactionId":"%s","occurredOn":"2026-11-30","amount":"9"}""".formatted(TRANSACTION),
                Names.of(Map.of("transaction", Map.of(TRANSACTION, Names.expense("12.50", "coffee", "2026-11-29"))))))
                .isEqualTo("Change the 12.50 coffee expense of 2026-11-29: amount to \"9.00\", occurredOn to"
                        + " \"2026-11-30\"");
        assertThat(headline(ShippedKinds.DELETE_TRANSACTION, """
                {"transactionId":"%s"}""".formatted(TRANSACTION), Names.IDS))
                .isEqualTo("Delete transaction " + TRANSACTION);
        assertThat(headline(ShippedKinds.DRAFT_PLAN, """
                {"name":"5k","startsOn":"2026-12-01","schedule":"Mon: run"}""", Names.IDS))
                .isEqualTo("Draft training plan \"5k\" from 2026-12-01");
        assertThat(headline(ShippedKinds.REVISE_PLAN, """
                {"planId":"%s","goal":"sub 25"}""".formatted(PLAN), Names.IDS))
                .isEqualTo("Revise draft plan " + PLAN + ": goal to \"sub 25\"");
        assertThat(headline(ShippedKinds.SEND_MAIL, """
                {"caseId":"%s","subject":"Your refund","body":"Done."}""".formatted(PLAN), Names.IDS))
                .isEqualTo("E-mail the requestor of case " + PLAN + ": \"Your refund\"");
        assertThat(headline(ShippedKinds.CREATE_TICKET, """
                {"title":"Printer","description":"Jammed."}""", Names.IDS)).isEqualTo("Create a ticket: \"Printer\"");
    }

    /** A wallet of another person is named with its owner; a name's own quotes cannot close the quote around it. */
    @Test
    void aWalletIsNamedWithItsOwnerUnlessItIsTheRequestersAndItsQuotesAreEscaped() {
        assertThat(Names.wallet("Savings", "alice", "alice")).isEqualTo("\"Savings\"");
        assertThat(Names.wallet("Savings", "bob", "alice")).isEqualTo("bob's \"Savings\"");
        assertThat(Names.wallet("x\" to \"Savings", "alice", "alice")).isEqualTo("\"x\\\" to \\\"Savings\"");
    }

    /** A value is never read as template: brackets and braces a model wrote stay text. */
    @Test
    void aValueIsNotTemplate() {
        assertThat(headline(ShippedKinds.RENAME_WALLET, """
                {"walletId":"%s","name":"[{walletId}] {*changes}"}""".formatted(WALLET), Names.IDS))
                .isEqualTo("Rename wallet " + WALLET + " to \"[{walletId}] {*changes}\"");
    }

    @Test
    void theTierIsTheBaseUnlessANamedAmountReachesTheThreshold() {
        TierPolicy policy = new TierPolicy(new BigDecimal("100.00"));
        ActionDefinition edit = ActionCatalogue.find(ShippedKinds.EDIT_TRANSACTION).orElseThrow();
        JsonNode small = json("{\"amount\":\"5.00\"}");
        JsonNode large = json("{\"amount\":\"100.00\"}");

        assertThat(edit.tierFor(small, small, policy)).isEqualTo(Tier.MEDIUM);
        assertThat(edit.tierFor(large, small, policy)).isEqualTo(Tier.HIGH);
        assertThat(edit.tierFor(small, large, policy)).isEqualTo(Tier.HIGH);
        assertThat(edit.tierFor(json("{\"category\":\"rent\"}"), null, policy)).isEqualTo(Tier.MEDIUM);
        ActionDefinition create = ActionCatalogue.find(ShippedKinds.CREATE_TRANSACTION).orElseThrow();
        assertThat(create.tierFor(small, large, policy)).isEqualTo(Tier.LOW);
    }

    @Test
    void theBudgetAmountIsTheDeclaredParameterOrItsChange() {
        ActionDefinition edit = ActionCatalogue.find(ShippedKinds.EDIT_TRANSACTION).orElseThrow();
        assertThat(edit.budgetAmount().of(json("{\"amount\":\"30.00\"}"), json("{\"amount\":\"50.00\"}")))
                .isEqualByComparingTo("20.00");
        assertThat(edit.budgetAmount().of(json("{\"amount\":\"30.00\"}"), null)).isEqualByComparingTo("30.00");
        assertThat(edit.budgetAmount().of(json("{\"category\":\"rent\"}"), json("{\"amount\":\"50.00\"}")))
                .isEqualByComparingTo("0");
        ActionDefinition rename = ActionCatalogue.find(ShippedKinds.RENAME_WALLET).orElseThrow();
        assertThat(rename.budgetAmount().of(json("{\"name\":\"x\"}"), null)).isEqualByComparingTo("0");
    }

    private static final String VALID = """
            {"kind":"shop.order.refund","domain":"shop","label":"Refund an order","description":"Refund an order.",
             "tool":"propose_refund",
             "params":[{"name":"orderId","type":"uuid","required":true,"description":"The order.","refersTo":"order"},
                       {"name":"amount","type":"money","required":true,"description":"How much."}],
             "editable":[],"tier":{"base":"medium","highAtThreshold":["params.amount"]},
             "budgetAmount":{"param":"amount"},"headline":"Refund {amount} of {orderId}"}""";

    @Test
    void aValidDeclarationReadsAsItsDefinition() {
        ActionDefinition refund = KindDeclarations.parse(json(VALID), "test");

        assertThat(refund.kind()).isEqualTo("shop.order.refund");
        assertThat(refund.isExternal()).isFalse();
        assertThat(refund.describe(json("{\"orderId\":\"o-1\",\"amount\":\"5.00\"}")))
                .isEqualTo("Refund 5.00 of order o-1");
        assertThat(refund.tierFor(json("{\"amount\":\"500.00\"}"), TierPolicy.DEFAULT)).isEqualTo(Tier.HIGH);
    }

    @Test
    void aBrokenDeclarationStopsTheStartSayingWhy() {
        assertThatThrownBy(() -> KindDeclarations.parse(json(VALID.replace("\"editable\"", "\"editible\"")), "t"))
                .hasMessageContaining("unknown member 'editible'");
        assertThatThrownBy(() -> KindDeclarations.parse(json(VALID.replace("{orderId}", "{order}")), "t"))
                .hasMessageContaining("the headline names 'order', which is not a parameter");
        assertThatThrownBy(() -> KindDeclarations.parse(json(VALID.replace("\"editable\":[]",
                "\"editable\":[\"status\"]")), "t")).hasMessageContaining("editable names 'status'");
        assertThatThrownBy(() -> KindDeclarations.parse(json(VALID.replace("params.amount", "amount")), "t"))
                .hasMessageContaining("highAtThreshold names params.<name> or before.<name>");
        assertThatThrownBy(() -> KindDeclarations.parse(json(VALID.replace("\"type\":\"money\"",
                "\"type\":\"text\"")), "t")).hasMessageContaining("needs a maxLength");
        assertThatThrownBy(() -> KindDeclarations.parse(json(VALID.replace("\"tool\":\"propose_refund\",", "")),
                "t")).hasMessageContaining("'tool' is required");
        assertThatThrownBy(() -> KindDeclarations.parse(json(VALID.replace("\"refersTo\":\"order\"",
                "\"picker\":\"customer\"")), "t")).hasMessageContaining("'customer' is not one of");
        assertThatThrownBy(() -> KindDeclarations.parse(json(VALID.replace("\"refersTo\":\"order\"",
                "\"picker\":\"category\"")), "t")).hasMessageContaining("a category picker needs a text parameter");
        assertThatThrownBy(() -> KindDeclarations.parse(json(VALID.replace("\"budgetAmount\":{\"param\":\"amount\"}",
                "\"budgetAmount\":{\"param\":\"orderId\"}")), "t"))
                .hasMessageContaining("'orderId', which is not a money parameter");
        assertThatThrownBy(() -> KindDeclarations.parse(json(VALID.replace("\"required\":true,\"description\":\"How",
                "\"required\":\"yes\",\"description\":\"How")), "t")).hasMessageContaining("must be true or false");
        assertThatThrownBy(() -> KindDeclarations.parse(json(VALID.replace("shop.order.refund", "Shop Refund")), "t"))
                .hasMessageContaining("is not <domain>.<noun>.<verb>");
        assertThatThrownBy(() -> KindDeclarations.parse(json(VALID.replace("propose_refund", "propose refund!")),
                "t")).hasMessageContaining("is not a lower-case name");
        assertThatThrownBy(() -> KindDeclarations.parse(json(VALID.replace("\"editable\":[]",
                "\"editable\":[],\"personEditable\":[\"orderId\"]")), "t"))
                .hasMessageContaining("refers to a row: an edit may change what an action writes, never which row");
        assertThatThrownBy(() -> KindDeclarations.parse(json(VALID.replace("\"editable\":[]",
                "\"editable\":[],\"personEditable\":[\"note\"]")), "t"))
                .hasMessageContaining("personEditable names 'note'");
    }

    /** What a person may change before approving is the declaration's; none unless it says. */
    @Test
    void personEditableParametersAreDeclaredOrNone() {
        assertThat(KindDeclarations.parse(json(VALID), "t").personEditable()).isEmpty();
        assertThat(KindDeclarations.parse(json(VALID.replace("\"editable\":[]",
                "\"editable\":[],\"personEditable\":[\"amount\"]")), "t").personEditable())
                .containsExactly("amount");
        assertThat(ActionCatalogue.find(ShippedKinds.CREATE_TRANSACTION).orElseThrow().personEditable())
                .containsExactly("amount", "category", "description", "occurredOn");
        assertThat(ActionCatalogue.find(ShippedKinds.SEND_MAIL).orElseThrow().personEditable()).isEmpty();
    }
}
