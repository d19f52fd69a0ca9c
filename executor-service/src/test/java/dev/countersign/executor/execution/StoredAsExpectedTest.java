package dev.countersign.executor.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.ActionStatus;
import dev.countersign.contracts.Tier;
import dev.countersign.contracts.json.Json;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.lifecycle.StoredRows;

/**
 * Statements sent before the answers they were built for: the write after the confirming compare-and-swap, built from
 * the locked row as the swap will store it, and the outcome event, made from the row {@code confirmed -> executed} is
 * expected to store. Each answer must be the predicted row, or the transaction must not commit.
 */
class StoredAsExpectedTest {

    private static final Instant CONFIRMED_AT = Instant.now().truncatedTo(ChronoUnit.MICROS);

    private static ActionRow confirmed() {
        return new ActionRow(UUID.randomUUID(), "t", "alice", "c-1", UUID.randomUUID(), "ledger.transaction.create",
                Tier.LOW, ActionStatus.CONFIRMED, json("{\"amount\":\"12.50\"}"), "h", "s", Instant.now(),
                Instant.now(), "bob", CONFIRMED_AT, null, null, "k", null, null, false, null, null, null, null, null);
    }

    private static JsonNode json(String text) {
        return Json.read(text, JsonNode.class);
    }

    @Test
    void theStoredRowIsTheExpectedOneWhenOnlyTheWayJavaTypedANumberDiffers() {
        ActionRow confirmed = confirmed();
        // Java made a long, the database's text reads back as an int; 1.50 and 1.5 are one number.
        JsonNode written = Json.mapper().createObjectNode().put("version", 1L).put("rate", new BigDecimal("1.50"));
        ActionRow expected = confirmed.executedInSameTransaction(written);
        ActionRow stored = expected.withResult(json("{\"rate\": 1.5, \"version\": 1}"));

        assertThat(StoredRows.storedAsExpected(stored, expected)).isSameAs(stored);
        assertThat(expected.executedAt()).isEqualTo(CONFIRMED_AT);
        assertThat(expected.status()).isEqualTo(ActionStatus.EXECUTED);
    }

    @Test
    void anUpdateThatMatchedNoRowFailsTheTransaction() {
        ActionRow expected = confirmed().executedInSameTransaction(json("{\"version\": 1}"));

        assertThatThrownBy(() -> StoredRows.storedAsExpected(null, expected))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no longer confirmed");
    }

    @Test
    void aStoredRowThatDiffersFromTheEventFailsTheTransaction() {
        ActionRow expected = confirmed().executedInSameTransaction(json("{\"version\": 1}"));
        ActionRow laterClock = new ActionRow(expected.id(), expected.tenantId(), expected.requestedBy(),
                expected.conversationId(), expected.turnId(), expected.kind(), expected.tier(), expected.status(),
                expected.params(), expected.paramsHash(), expected.summary(), expected.proposedAt(),
                expected.expiresAt(), expected.confirmedBy(), expected.confirmedAt(),
                CONFIRMED_AT.plusMillis(1), expected.result(), expected.idempotencyKey(), expected.targetVersion(),
                expected.targetBefore(), expected.autoApplied(), expected.undoneBy(), expected.undoneAt(),
                expected.traceParent(), expected.heldReason(), expected.targetOwner());

        assertThatThrownBy(() -> StoredRows.storedAsExpected(laterClock, expected))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("otherwise than its outcome event");
        assertThatThrownBy(() -> StoredRows.storedAsExpected(expected.withResult(json("{\"version\": 2}")),
                expected)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> StoredRows.storedAsExpected(expected.withResult(null), expected))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aNullResultIsStoredAsJsonNull() {
        ActionRow expected = confirmed().executedInSameTransaction(null);
        ActionRow stored = expected.withResult(json("null"));

        assertThat(StoredRows.storedAsExpected(stored, expected)).isSameAs(stored);
    }

    @Test
    void theSwapMustAnswerTheLockedRowAsConfirmedByThePerson() {
        ActionRow locked = new ActionRow(UUID.randomUUID(), "t", "alice", "c-1", UUID.randomUUID(),
                "ledger.transaction.create", Tier.LOW, ActionStatus.PROPOSED, json("{\"amount\":\"12.50\"}"), "h", "s",
                Instant.now(), Instant.now(), null, null, null, null, "k", null, null, false, null, null, null, null,
                null);
        ActionRow swapped = locked.asConfirmedBy("bob", CONFIRMED_AT);
        ActionRow expected = locked.asConfirmedBy("bob", CONFIRMED_AT);

        assertThat(ActionExecution.confirmedAsExpected(swapped, expected)).isSameAs(swapped);
        assertThatThrownBy(() -> ActionExecution.confirmedAsExpected(null, expected))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("nothing commits");
        assertThatThrownBy(() -> ActionExecution.confirmedAsExpected(locked.asConfirmedBy("carol", CONFIRMED_AT),
                expected)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ActionExecution.confirmedAsExpected(
                locked.asConfirmedBy("bob", CONFIRMED_AT.plusNanos(1000)), expected))
                .as("confirmed at another time than the lock's now(): the event would say otherwise")
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ActionExecution.confirmedAsExpected(swapped.withResult(json("{}")), expected))
                .isInstanceOf(IllegalStateException.class);
    }
}
