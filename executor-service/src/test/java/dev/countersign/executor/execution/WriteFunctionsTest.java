package dev.countersign.executor.execution;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.countersign.executor.ExecutorTestResources;
import dev.countersign.executor.kinds.fixture.wallet.shout.ShoutWalletKind;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;

/** A database kind whose write function is not in the database stops the start, naming it. */
@QuarkusTest
@ExecutorTestResources
class WriteFunctionsTest {

    @Inject
    Pool pool;

    @Test
    void aKindWithoutItsWriteFunctionStopsTheStart() {
        var whisper = new ShoutWalletKind() {

            @Override
            public String writeFunction() {
                return "fixture_wallet_whisper_write";
            }
        };
        var registry = new ExecutorRegistry(List.of(whisper), List.of());

        assertThatThrownBy(() -> new WriteFunctions(registry, pool).onStart(null))
                .hasMessageContaining("fixture_wallet_whisper_write").hasMessageContaining("repeatable migration");
        assertThatCode(() -> new WriteFunctions(new ExecutorRegistry(List.of(new ShoutWalletKind()), List.of()), pool)
                .onStart(null)).as("the fixture kind's function, from the tests' own migration folder")
                .doesNotThrowAnyException();
    }
}
