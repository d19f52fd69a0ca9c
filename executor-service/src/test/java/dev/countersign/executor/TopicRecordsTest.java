package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.countersign.devsupport.testing.TopicRecords;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The tests' reader of topics (over the KafkaCompanion) on the tests' broker: it finds what was sent, and a read whose
 * consumer failed throws rather than passing for one that found nothing (the companion keeps such a failure to itself).
 */
@QuarkusTest
@ExecutorTestResources
class TopicRecordsTest {

    private final TopicRecords kafka = TopicRecords.fromTestProperties();

    @Test
    void aRecordSentIsFoundAndAReadWhoseConsumerFailedThrows() {
        String topic = "test.topic-records." + UUID.randomUUID();
        String value = "value-" + UUID.randomUUID();
        kafka.send(topic, "key", value);

        assertThat(kafka.awaitAny(topic, found -> found.equals(value))).containsExactly(value);
        assertThatThrownBy(() -> kafka.awaitAny(topic, found -> {
            throw new IllegalArgumentException("a filter that fails");
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("Reading " + topic + " failed")
                .hasRootCauseMessage("a filter that fails");
    }
}
