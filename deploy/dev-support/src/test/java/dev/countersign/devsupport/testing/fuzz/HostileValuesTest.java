package dev.countersign.devsupport.testing.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

class HostileValuesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aQuotedStringReadsBackAsItself() throws Exception {
        HostileValues values = new HostileValues(new Random(7), 3000);
        for (int i = 0; i < 2000; i++) {
            String text = values.string();
            assertThat(JSON.readValue(HostileValues.quote(text), String.class)).isEqualTo(text);
        }
        for (String text : new String[]{"", "plain", "\"", "\\", "a\u0000b", "\u001f", "\uD800", "x\uDFFFy",
                "\uD83D\uDE00", "h".repeat(3000)}) {
            assertThat(JSON.readValue(HostileValues.quote(text), String.class)).as(text).isEqualTo(text);
        }
    }

    @Test
    void loneSurrogatesAndControlCharactersAreEscapedAndOtherTextIsNot() {
        assertThat(HostileValues.quote("a\uD800\u0001\"\\b")).isEqualTo("\"a\\ud800\\u0001\\\"\\\\b\"");
        assertThat(HostileValues.quote("\uD83D\uDE00 é")).isEqualTo("\"\\ud83d\\ude00 é\"");
    }
}
