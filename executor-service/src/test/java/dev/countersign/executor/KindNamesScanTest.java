package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;

/**
 * No gate, agent or page file names an action kind: neither a declared kind's name nor the {@code ShippedKinds}
 * constants (which a bytecode rule could not see, the compiler inlines them). Read from the sources: the Java, SQL,
 * JavaScript and HTML of executor-service, agent-service, shared-web and shared-contracts.
 * <p>
 * Exempt, each for its reason: a kind's own folder ({@code executor/kinds/}) and declaration
 * ({@code countersign/kinds/}); {@code ShippedKinds} itself; versioned migrations, which cannot change once applied
 * (V24 and V30 name kinds); configuration ({@code application.properties} names the kind CSV imports are). The demo
 * model and the fuzzers (dev-support, test tooling) are not scanned.
 */
class KindNamesScanTest {

    private static final List<Path> ROOTS = List.of(Path.of("src/main"), Path.of("../agent-service/src/main"),
            Path.of("../shared-web/src/main"), Path.of("../shared-contracts/src/main"));
    private static final Set<String> SCANNED = Set.of(".java", ".sql", ".js", ".html");

    private static boolean exempt(Path file) {
        String path = file.toString().replace('\\', '/');
        return path.contains("/dev/countersign/executor/kinds/") || path.contains("/countersign/kinds/")
                || path.contains("/db/migration/kinds/")
                || path.endsWith("/ShippedKinds.java") || file.getFileName().toString().matches("V\\d+__.*\\.sql");
    }

    /** The kind names, and the constants class, that {@code text} mentions. */
    static Set<String> kindNamesIn(String text) {
        Set<String> found = new TreeSet<>();
        for (ActionDefinition definition : ActionCatalogue.all()) {
            if (text.contains(definition.kind())) {
                found.add(definition.kind());
            }
        }
        if (text.contains("ShippedKinds")) {
            found.add("ShippedKinds");
        }
        return found;
    }

    @Test
    void noGateAgentOrPageFileNamesAKind() {
        List<String> offenders = new ArrayList<>();
        int scanned = 0;
        for (Path root : ROOTS) {
            assertThat(root).as("scanned root").isDirectory();
            try (Stream<Path> files = Files.walk(root)) {
                for (Path file : files.filter(Files::isRegularFile).filter(KindNamesScanTest::isScanned)
                        .filter(file -> !exempt(file)).toList()) {
                    scanned++;
                    Set<String> names = kindNamesIn(Files.readString(file));
                    if (!names.isEmpty()) {
                        offenders.add(file + " names " + names);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        assertThat(scanned).as("files scanned").isGreaterThan(300);
        assertThat(offenders).isEmpty();
    }

    @Test
    void theScanSeesANameAndAConstantButNotAParameter() {
        assertThat(kindNamesIn("if (kind.equals(\"ledger.wallet.rename\")) {")).containsExactly(
                "ledger.wallet.rename");
        assertThat(kindNamesIn("ShippedKinds.SEND_MAIL")).containsExactly("ShippedKinds");
        assertThat(kindNamesIn("params.get(\"walletId\")")).isEmpty();
        assertThat(exempt(Path.of("src/main/resources/db/migration/V24__action_target_owner.sql"))).isTrue();
        assertThat(exempt(Path.of("src/main/resources/db/migration/R__actions_external_calls.sql"))).isFalse();
        assertThat(exempt(Path.of("src/main/resources/db/migration/R__execute_action.sql"))).isFalse();
        assertThat(exempt(Path.of(
                "src/main/resources/db/migration/kinds/ledger/wallet/rename/R__kind_ledger_wallet_rename.sql")))
                .isTrue();
    }

    private static boolean isScanned(Path file) {
        String name = file.getFileName().toString();
        return SCANNED.stream().anyMatch(name::endsWith);
    }
}
