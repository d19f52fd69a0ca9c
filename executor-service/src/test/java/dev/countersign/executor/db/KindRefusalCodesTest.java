package dev.countersign.executor.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.ErrorCode;

/**
 * A kind's SQL refuses with an error code as text ({@code kind_refuse('<code>', ...)}), which the gate maps to an
 * {@link ErrorCode} only when it runs (a code that is none fails the transaction): every such literal in the
 * migrations, the kinds' and the tests' own, must be one.
 */
class KindRefusalCodesTest {

    private static final Pattern REFUSAL = Pattern.compile("kind_refuse\\(\\s*'([^']*)'|refusal := '([^']*)'");

    @Test
    void everyRefusalCodeInTheSqlIsAnErrorCode() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path root : List.of(Path.of("src/main/resources/db"), Path.of("src/test/resources/db"))) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path file : files.filter(f -> f.toString().endsWith(".sql")).toList()) {
                    Matcher refusal = REFUSAL.matcher(Files.readString(file));
                    while (refusal.find()) {
                        String code = refusal.group(1) != null ? refusal.group(1) : refusal.group(2);
                        found.add(code);
                        assertThat(ErrorCode.find(code)).as("%s refuses with %s", file, code).isPresent();
                    }
                }
            }
        }
        assertThat(found).as("the refusals the scan read").contains("target_not_found", "currency_mismatch",
                "not_undoable", "target_changed");
    }

    @Test
    void theScanSeesACodeThatIsNone() {
        Matcher refusal = REFUSAL.matcher("PERFORM kind_refuse('no_such_code', 'x');");
        assertThat(refusal.find()).isTrue();
        assertThat(ErrorCode.find(refusal.group(1))).isEmpty();
    }
}
