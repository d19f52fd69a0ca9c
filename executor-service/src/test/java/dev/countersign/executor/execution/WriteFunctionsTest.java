package dev.countersign.executor.execution;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.countersign.devsupport.LocalPostgres;
import dev.countersign.devsupport.testing.TestProperties;
import dev.countersign.executor.ExecutorTestResources;
import dev.countersign.executor.kinds.fixture.wallet.shout.ShoutWalletKind;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;

/**
 * A database kind whose write or undo function is not in the database, is not the executor's to run, runs with its
 * owner's rights, is STRICT or leaves its search_path unpinned, stops the start, naming it.
 */
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
        var undoMissing = new ShoutWalletKind() {

            @Override
            public String undoFunction() {
                return "fixture_wallet_whisper_undo";
            }
        };
        assertThatThrownBy(() -> new WriteFunctions(new ExecutorRegistry(List.of(undoMissing), List.of()), pool)
                .onStart(null)).hasMessageContaining("fixture_wallet_whisper_undo");
        assertThatCode(() -> new WriteFunctions(new ExecutorRegistry(List.of(new ShoutWalletKind()), List.of()), pool)
                .onStart(null)).as("the fixture kind's function, from the tests' own migration folder")
                .doesNotThrowAnyException();
    }

    /**
     * As the tables' owner a SECURITY DEFINER function would pass row-level security (another tenant's rows); an
     * unpinned search_path lets the caller's path pick what its unqualified names mean.
     */
    @Test
    void aKindFunctionWithTheOwnersRightsOrAnUnpinnedSearchPathStopsTheStart() throws Exception {
        String arguments = "(p_action uuid, p_tenant text, p_requester text, p_params jsonb, p_target_version bigint)";
        try (var owner = TestProperties.ownerConnection(); var sql = owner.createStatement()) {
            sql.execute("CREATE FUNCTION fixture_definer_write" + arguments + " RETURNS jsonb LANGUAGE sql"
                    + " SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$ SELECT '{}'::jsonb $$");
            sql.execute("CREATE FUNCTION fixture_unpinned_write" + arguments
                    + " RETURNS jsonb LANGUAGE sql AS $$ SELECT '{}'::jsonb $$");
            sql.execute("CREATE FUNCTION fixture_strict_write" + arguments + " RETURNS jsonb LANGUAGE sql STRICT"
                    + " SET search_path = pg_catalog, public, pg_temp AS $$ SELECT '{}'::jsonb $$");
            sql.execute("CREATE FUNCTION fixture_ungranted_write" + arguments + " RETURNS jsonb LANGUAGE sql"
                    + " SET search_path = pg_catalog, public, pg_temp AS $$ SELECT '{}'::jsonb $$");
            sql.execute("REVOKE ALL ON FUNCTION fixture_ungranted_write(uuid, text, text, jsonb, bigint) FROM PUBLIC");
            sql.execute("GRANT EXECUTE ON FUNCTION fixture_definer_write(uuid, text, text, jsonb, bigint),"
                    + " fixture_unpinned_write(uuid, text, text, jsonb, bigint),"
                    + " fixture_strict_write(uuid, text, text, jsonb, bigint) TO " + LocalPostgres.EXECUTOR_ROLE);
        }
        try {
            for (String function : List.of("fixture_definer_write", "fixture_unpinned_write", "fixture_strict_write",
                    "fixture_ungranted_write")) {
                var planted = new ShoutWalletKind() {

                    @Override
                    public String writeFunction() {
                        return function;
                    }
                };
                assertThatThrownBy(() -> new WriteFunctions(new ExecutorRegistry(List.of(planted), List.of()), pool)
                        .onStart(null)).as(function).hasMessageContaining(function);
            }
        } finally {
            try (var owner = TestProperties.ownerConnection(); var sql = owner.createStatement()) {
                // DatabaseRulesMigrationTest compares functions with the migrations: leave none behind.
                sql.execute("DROP FUNCTION fixture_definer_write(uuid, text, text, jsonb, bigint),"
                        + " fixture_unpinned_write(uuid, text, text, jsonb, bigint),"
                        + " fixture_strict_write(uuid, text, text, jsonb, bigint),"
                        + " fixture_ungranted_write(uuid, text, text, jsonb, bigint)");
            }
        }
    }
}
