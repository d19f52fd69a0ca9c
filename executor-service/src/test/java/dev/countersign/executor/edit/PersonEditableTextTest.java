package dev.countersign.executor.edit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.contracts.catalogue.ParamType;

/**
 * Text a person may edit before approving keeps its writer where the edit left it (docs/approvals.md, provenance):
 * every text parameter a kind declares person-editable is written by its kind's SQL through
 * {@code action_text_writer(p_action, '<parameter>')}, so a kind added later cannot forget it.
 */
class PersonEditableTextTest {

    private static final Path KINDS = Path.of("src", "main", "resources", "db", "migration", "kinds");

    @Test
    void everyPersonEditableTextIsWrittenWithItsWriter() throws IOException {
        int checked = 0;
        for (ActionDefinition definition : ActionCatalogue.all()) {
            List<String> texts = definition.params().stream()
                    .filter(param -> definition.personEditable().contains(param.name()))
                    .filter(param -> param.type() == ParamType.TEXT || param.type() == ParamType.LINES)
                    .map(param -> param.name()).toList();
            if (texts.isEmpty() || definition.isExternal()) {
                continue;
            }
            String sql = kindSql(definition.kind());
            for (String text : texts) {
                assertThat(sql).as("%s writes %s", definition.kind(), text)
                        .contains("action_text_writer(p_action, '" + text + "')");
                checked++;
            }
        }
        assertThat(checked).as("the shipped kinds' person-editable texts").isGreaterThanOrEqualTo(4);
    }

    private static String kindSql(String kind) throws IOException {
        Path folder = KINDS.resolve(kind.replace('.', '/'));
        try (Stream<Path> files = Files.list(folder)) {
            StringBuilder all = new StringBuilder();
            for (Path file : files.filter(file -> file.toString().endsWith(".sql")).toList()) {
                all.append(Files.readString(file));
            }
            return all.toString();
        }
    }
}
