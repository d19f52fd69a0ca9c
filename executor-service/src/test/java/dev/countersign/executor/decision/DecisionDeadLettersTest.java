package dev.countersign.executor.decision;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.Test;

class DecisionDeadLettersTest {

    @Test
    void aLongTokenInAnUnreadableRecordIsRedactedWithoutOverflowingTheStack() {
        String token = "a".repeat(100_000);

        String parked = DecisionDeadLetters.redact("{\"marker\":\"m\",\"token\":\"" + token + "\"");

        assertThat(parked).doesNotContain(token).contains("\"token\":\"" + DecisionDeadLetters.REDACTED + "\"")
                .contains("marker");
    }

    @Test
    void aTokenWhoseTextIsNeverClosedIsRedactedToTheEnd() {
        String parked = DecisionDeadLetters.redact("{\"token\":\"secret-part-of-a-token");

        assertThat(parked).doesNotContain("secret-part-of-a-token");
    }

    @Test
    void onlyARecordTooLargeIsRefusedForGood() {
        assertThat(DecisionDeadLetters.refusedForGood(new RuntimeException(new RecordTooLargeException("big"))))
                .isTrue();
        assertThat(DecisionDeadLetters.refusedForGood(new RuntimeException("broker away"))).isFalse();
    }
}
