package dev.countersign.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.catalogue.TierPolicy;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.contracts.catalogue.Violation;
import dev.countersign.contracts.json.Json;

class ActionCatalogueTest {

    private static final String WALLET = "11111111-2222-4333-8444-555555555555";

    private static JsonNode json(String text) throws Exception {
        return Json.mapper().readTree(text);
    }

    private static ValidatedParams createWith(String members) throws Exception {
        return ActionCatalogue.validate(ShippedKinds.CREATE_TRANSACTION,
                json("{\"walletId\":\"" + WALLET + "\",\"category\":\"coffee\",\"occurredOn\":\"2026-11-29\"" + members
                        + "}"));
    }

    @Test
    void normalisesMoneyToTwoPlacesAndTrimsText() throws Exception {
        var result = ActionCatalogue.validate(ShippedKinds.CREATE_TRANSACTION, json(
                "{\"walletId\":\"" + WALLET
                        + "\",\"amount\":\"12.5\",\"category\":\"  coffee \",\"occurredOn\":\"2026-11-29\"}"));

        assertThat(result.violations()).isEmpty();
        assertThat(result.normalised().get("amount").asText()).isEqualTo("12.50");
        assertThat(result.normalised().get("category").asText()).isEqualTo("coffee");
        assertThat(result.normalised().has("description")).isFalse();
    }

    @Test
    void refusesUnknownMembersInsteadOfDroppingThem() throws Exception {
        var result = createWith(",\"amount\":\"1.00\",\"status\":\"executed\"");

        assertThat(result.isValid()).isFalse();
        assertThat(result.violations()).extracting(Violation::field).containsExactly("status");
        assertThat(result.violations().get(0).message()).contains("allowed").contains("amount");
    }

    @Test
    void refusesNonPositiveOverPreciseAndAbsurdAmounts() throws Exception {
        assertThat(createWith(",\"amount\":\"0\"").violations()).extracting(Violation::message)
                .containsExactly("must be greater than 0");
        assertThat(createWith(",\"amount\":\"-3.00\"").isValid()).isFalse();
        assertThat(createWith(",\"amount\":\"1.005\"").violations()).extracting(Violation::message)
                .containsExactly("must have at most two decimal places");
        assertThat(createWith(",\"amount\":\"10000000.01\"").isValid()).isFalse();
        assertThat(createWith(",\"amount\":\"twelve\"").isValid()).isFalse();
    }

    @Test
    void refusesMissingRequiredAndMalformedIdentifiers() throws Exception {
        var result = ActionCatalogue.validate(ShippedKinds.CREATE_TRANSACTION,
                json("{\"walletId\":\"Checking\",\"amount\":\"3.00\"}"));

        assertThat(result.violations()).extracting(Violation::field)
                .containsExactlyInAnyOrder("walletId", "category", "occurredOn");
    }

    @Test
    void refusesTextWithControlCharactersOrOverItsLimit() throws Exception {
        assertThat(createWith(",\"amount\":\"1.00\",\"description\":\"a\\u0000b\"").isValid()).isFalse();
        assertThat(createWith(",\"amount\":\"1.00\",\"description\":\"" + "x".repeat(201) + "\"").isValid())
                .isFalse();
        assertThat(createWith(",\"amount\":\"1.00\",\"description\":\"" + "x".repeat(200) + "\"").isValid())
                .isTrue();
    }

    @Test
    void unknownKindNamesTheKnownOnes() throws Exception {
        var result = ActionCatalogue.validate("ledger.wallet.delete", json("{}"));

        assertThat(result.isValid()).isFalse();
        assertThat(result.violations().get(0).message()).contains(ShippedKinds.CREATE_TRANSACTION);
    }

    @Test
    void createsAtOrAboveTheThresholdAreHigh() throws Exception {
        var definition = ActionCatalogue.find(ShippedKinds.CREATE_TRANSACTION).orElseThrow();

        assertThat(definition.tierFor(createWith(",\"amount\":\"499.99\"").normalised(), TierPolicy.DEFAULT))
                .isEqualTo(Tier.LOW);
        assertThat(definition.tierFor(createWith(",\"amount\":\"500.00\"").normalised(), TierPolicy.DEFAULT))
                .isEqualTo(Tier.HIGH);
    }

    @Test
    void aScheduleKeepsItsLinesButNoOtherControlCharacters() throws Exception {
        var ok = ActionCatalogue.validate(ShippedKinds.DRAFT_PLAN, Json.mapper().readTree(
                "{\"name\":\"Base\",\"startsOn\":\"2026-12-01\",\"schedule\":\"Mon: run\\r\\nWed: swim\"}"));
        var bell = ActionCatalogue.validate(ShippedKinds.DRAFT_PLAN, Json.mapper().readTree(
                "{\"name\":\"Base\",\"startsOn\":\"2026-12-01\",\"schedule\":\"Mon: run\\u0007\"}"));
        var nameWithLines = ActionCatalogue.validate(ShippedKinds.DRAFT_PLAN, Json.mapper().readTree(
                "{\"name\":\"Ba\\nse\",\"startsOn\":\"2026-12-01\",\"schedule\":\"Mon: run\"}"));

        assertThat(ok.normalised().get("schedule").asText()).isEqualTo("Mon: run\nWed: swim");
        assertThat(bell.violationsText()).contains("schedule: must not contain control characters other than");
        assertThat(nameWithLines.violationsText()).contains("name: must not contain control characters");
    }

    @Test
    void anEditMustChangeSomething() throws Exception {
        var nothing = ActionCatalogue.validate(ShippedKinds.EDIT_TRANSACTION, Json.mapper().readTree(
                "{\"transactionId\":\"123e4567-e89b-12d3-a456-426614174000\"}"));

        assertThat(nothing.violationsText()).contains("change at least one of [amount, category, description,"
                + " occurredOn]");
    }

    @Test
    void onlyTheNameOfAWalletIsEditable() {
        var rename = ActionCatalogue.find(ShippedKinds.RENAME_WALLET).orElseThrow();

        assertThat(rename.editableFields()).containsExactly("name");
        assertThat(rename.param("currency")).isEmpty();
    }
}
