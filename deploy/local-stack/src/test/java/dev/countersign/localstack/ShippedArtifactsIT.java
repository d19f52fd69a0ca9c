package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * What actually ships in agent-service's packaged application: no executor code, no JDBC driver, no migrations. Read
 * from the build output the run command starts, not from the source.
 */
class ShippedArtifactsIT {

    private static final Path ROOT = TestStacks.repositoryRoot();

    private static List<String> jarNames(String module) throws IOException {
        Path app = ROOT.resolve(module).resolve("target/quarkus-app");
        assertThat(app).as("build %s first", module).isDirectory();
        try (Stream<Path> files = Files.walk(app)) {
            return files.map(path -> path.getFileName().toString()).filter(name -> name.endsWith(".jar")).toList();
        }
    }

    @Test
    void theAgentShipsNoExecutorCodeNoJdbcDriverAndNoMigrations() throws IOException {
        List<String> jars = jarNames("agent-service");

        assertThat(jars).anyMatch(name -> name.contains("shared-contracts"));
        assertThat(jars).noneMatch(name -> name.contains("executor-service"))
                .noneMatch(name -> name.contains("postgresql-42"))
                .noneMatch(name -> name.contains("flyway"))
                .noneMatch(name -> name.contains("dev-support"));
    }

    @Test
    void theExecutorShipsNoDevTokenMinterAndNoDemoModel() throws IOException {
        assertThat(jarNames("executor-service")).noneMatch(name -> name.contains("dev-support"))
                .noneMatch(name -> name.contains("langchain4j"));
    }
}
