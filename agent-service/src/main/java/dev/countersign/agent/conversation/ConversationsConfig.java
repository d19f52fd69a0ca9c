package dev.countersign.agent.conversation;

import java.time.Duration;

import jakarta.validation.constraints.Min;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "countersign.conversations")
public interface ConversationsConfig {

    /** How many earlier turns of a conversation a turn shows the model. */
    @WithDefault("20")
    @Min(0)
    int historyTurns();

    /**
     * At most this many characters of recorded turns (as JSON) are replayed, newest first: a rough bound on the model's
     * context, not a token count.
     */
    @WithDefault("40000")
    @Min(0)
    int historyChars();

    /** How long publishing a finished turn may wait for the broker's acknowledgement. */
    @WithDefault("PT5S")
    @DurationMin(millis = 1)
    Duration publishTimeout();

    /** How long a reply waits for the executor to append its turn to the ledger. */
    @WithDefault("PT3S")
    @DurationMin(millis = 1)
    Duration ledgerWait();
}
