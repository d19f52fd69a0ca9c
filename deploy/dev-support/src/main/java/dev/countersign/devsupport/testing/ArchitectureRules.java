package dev.countersign.devsupport.testing;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/**
 * The architecture rules both services keep, for their ArchitectureTest (ArchUnit, on the compiled main classes). A
 * rule that matches no class fails (ArchUnit's default), so a renamed root package cannot make a rule pass by
 * emptiness.
 */
public final class ArchitectureRules {

    private ArchitectureRules() {
    }

    /** A service's main classes (no tests) under {@code rootPackage}. */
    public static JavaClasses mainClasses(String rootPackage) {
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(rootPackage);
    }

    /** The packages right under {@code rootPackage} (with their sub-packages) depend on each other in no cycle. */
    public static ArchRule packagesFormNoCycle(String rootPackage) {
        return slices().matching(rootPackage + ".(*)..").should().beFreeOfCycles();
    }

    /** No cycle between classes: the same check with each class a slice (to show the cycle check fails). */
    public static ArchRule classesFormNoCycle() {
        return slices().assignedFrom(new SliceAssignment() {

            @Override
            public SliceIdentifier getIdentifierOf(JavaClass type) {
                return SliceIdentifier.of(type.getName());
            }

            @Override
            public String getDescription() {
                return "each class";
            }
        }).should().beFreeOfCycles();
    }

    /** No JAX-RS resource runs a query itself: SQL lives in repositories and readers, with its tenant rules. */
    public static ArchRule resourcesRunNoSql() {
        return noClasses().that().areAnnotatedWith("jakarta.ws.rs.Path")
                .should().callMethodWhere(describe("a SQL client's query", (JavaMethodCall call) -> call
                        .getTargetOwner().getPackageName().matches("io\\.vertx\\.(mutiny\\.)?sqlclient.*")
                        && call.getName().matches("query|preparedQuery")))
                .because("a resource reads and writes through a repository, where the SQL and its tenant rules live");
    }
}
