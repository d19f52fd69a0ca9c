package dev.countersign.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ShippedKinds;
import dev.countersign.contracts.catalogue.ValidatedParams;
import dev.countersign.contracts.catalogue.Violation;

/**
 * A summary a person approves cannot be visually spoofed: every class of invisible or reordering character is refused
 * in every kind of text parameter (one-line and multi-line), with a violation naming the field and the character.
 */
class InvisibleCharactersTest {

    private static final String WALLET = "11111111-2222-4333-8444-555555555555";
    private static final String CASE = "21111111-2222-4333-8444-555555555555";

    private static ValidatedParams expense(String description) {
        ObjectNode params = JsonNodeFactory.instance.objectNode().put("walletId", WALLET).put("amount", "4.20")
                .put("category", "coffee").put("description", description).put("occurredOn", "2026-11-29");
        return ActionCatalogue.validate(ShippedKinds.CREATE_TRANSACTION, params);
    }

    private static ValidatedParams rename(String name) {
        return ActionCatalogue.validate(ShippedKinds.RENAME_WALLET,
                JsonNodeFactory.instance.objectNode().put("walletId", WALLET).put("name", name));
    }

    private static ValidatedParams mail(String body) {
        return ActionCatalogue.validate(ShippedKinds.SEND_MAIL, JsonNodeFactory.instance.objectNode()
                .put("caseId", CASE).put("subject", "Your refund").put("body", body));
    }

    @ParameterizedTest(name = "U+{0} ({1}) is refused")
    @CsvSource({
            "202A, left-to-right embedding",
            "202B, right-to-left embedding",
            "202C, pop directional formatting",
            "202D, left-to-right override",
            "202E, right-to-left override",
            "2066, left-to-right isolate",
            "2067, right-to-left isolate",
            "2068, first strong isolate",
            "2069, pop directional isolate",
            "200E, left-to-right mark",
            "200F, right-to-left mark",
            "061C, arabic letter mark",
            "200B, zero width space",
            "200C, zero width non-joiner",
            "200D, zero width joiner",
            "2060, word joiner",
            "FEFF, byte order mark",
            "00AD, soft hyphen",
            "2028, line separator",
            "2029, paragraph separator",
            "E0041, tag latin capital letter a",
            "3164, hangul filler",
            "D800, unpaired surrogate"})
    void refusesEachClassOfInvisibleCharacterInOneLineText(String hex, String label) {
        String sneaky = "Coffee " + new String(Character.toChars(Integer.parseInt(hex, 16))) + "beans";

        ValidatedParams result = expense(sneaky);

        assertThat(result.isValid()).as(label).isFalse();
        assertThat(result.violations()).extracting(Violation::field).containsExactly("description");
        assertThat(result.violations().get(0).message()).contains("U+" + hex).contains("invisible");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\u202E", "\u2066", "\u200B", "\uFEFF", "\u00AD"})
    void refusesThemInWalletRenamesAndMailBodiesToo(String sneaky) {
        assertThat(rename("Savings" + sneaky + "Holiday").violations()).extracting(Violation::field)
                .containsExactly("name");
        assertThat(mail("Dear customer,\nyour refund of 10" + sneaky + "0.00 is on its way.").violations())
                .extracting(Violation::field).containsExactly("body");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\u0000", "\u0007", "\u001B[31m", "\u007F", "\u0085", "\t", "\r"})
    void stillRefusesOtherControlCharacters(String control) {
        assertThat(expense("a" + control + "b").isValid()).isFalse();
        assertThat(mail("line one\n" + control + "line two").isValid()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"Café crème", "Кофе", "קפה ושוקולד", "قهوة", "コーヒー", "Coffee ☕️", "naïve – “quoted”"})
    void acceptsOrdinaryTextInAnyScriptIncludingRightToLeftLetters(String text) {
        assertThat(expense(text).isValid()).as(text).isTrue();
        assertThat(expense(text).normalised().get("description").asText()).isEqualTo(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"Mon: 5 km easy run\nWed: intervals\nSat: long run"})
    void keepsLineFeedsInMultiLineText(String schedule) {
        assertThat(mail(schedule).isValid()).isTrue();
    }
}
