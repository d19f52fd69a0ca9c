package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

class EndToEndClassOrderTest {

    /** Surefire runs in the module's directory. */
    private static final Path SOURCES = Path.of("src/test/java/dev/countersign/localstack");

    @Test
    void everyEndToEndClassIsPlacedOnOneOfTheTwoThreadsOrNamedAsAnotherEnginesClass() throws IOException {
        List<String> classes;
        try (Stream<Path> files = Files.list(SOURCES)) {
            classes = files.map(file -> file.getFileName().toString()).filter(name -> name.endsWith("IT.java"))
                    .map(name -> name.substring(0, name.length() - ".java".length())).toList();
        }
        List<String> placed = new ArrayList<>(EndToEndClassOrder.FRONT);
        placed.addAll(EndToEndClassOrder.BACK);
        placed.addAll(EndToEndClassOrder.OTHER_ENGINES);

        assertThat(placed).as("a renamed or new *IT class is named in EndToEndClassOrder")
                .containsExactlyInAnyOrderElementsOf(classes);
    }

    @Test
    void theFrontComesFirstInItsOrderAndTheBackLastReversedWithUnknownClassesBetween() {
        List<String> names = new ArrayList<>(List.of("SomeNewIT", "FaultsIT", "TwoAgentsIT", "LocalStackIT",
                "WebUiIT"));

        names.sort(Comparator.comparingInt(EndToEndClassOrder::position));

        assertThat(names).containsExactly("WebUiIT", "TwoAgentsIT", "SomeNewIT", "LocalStackIT", "FaultsIT");
    }
}
