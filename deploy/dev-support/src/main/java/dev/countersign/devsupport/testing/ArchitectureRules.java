package dev.countersign.devsupport.testing;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import java.util.regex.Pattern;

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

    /**
     * Query methods of Hibernate Reactive's sessions, and Panache's query methods (static on an entity, inherited by a
     * repository, or {@code Panache.executeUpdate}).
     */
    private static final Pattern SESSION_QUERY = Pattern
            .compile("createNativeQuery|createQuery|createSelectionQuery|createMutationQuery|createNamedQuery");
    private static final Pattern PANACHE_QUERY = Pattern
            .compile("find.*|list.*|stream.*|count|delete.*|update|executeUpdate|persist.*");

    /**
     * No JAX-RS resource runs a query itself: SQL and HQL live in repositories and readers, with their tenant rules. A
     * query is a call of the Vert.x SQL client's {@code query}/{@code preparedQuery}, of a Hibernate Reactive session's
     * {@code create...Query}, or of a Panache query method ({@code TrainingPlan.find(...)},
     * {@code repository.list(...)}, {@code Panache.executeUpdate(...)}).
     * <p>
     * Limits: it reads class files, so it sees direct calls only; a resource that hands a session to a helper of its
     * own class is caught (the helper is in the resource), one that hands it to a class without {@code @Path} is not.
     * Types are matched by name, so dev-support needs neither Hibernate nor Panache on its class path.
     */
    public static ArchRule resourcesRunNoSql() {
        return noClasses().that().areAnnotatedWith("jakarta.ws.rs.Path")
                .should().callMethodWhere(describe("a query (SQL client, Hibernate Reactive session or Panache)",
                        ArchitectureRules::isQuery))
                .because("a resource reads and writes through a repository, where the query and its tenant rules"
                        + " live");
    }

    static boolean isQuery(JavaMethodCall call) {
        JavaClass owner = call.getTargetOwner();
        String name = call.getName();
        if (owner.getPackageName().matches("io\\.vertx\\.(mutiny\\.)?sqlclient.*")) {
            return name.matches("query|preparedQuery");
        }
        // Mutiny.Session and Mutiny.StatelessSession are nested interfaces: Mutiny$Session in the class file.
        if (owner.isAssignableTo("org.hibernate.reactive.mutiny.Mutiny$Session")
                || owner.isAssignableTo("org.hibernate.reactive.mutiny.Mutiny$StatelessSession")
                || owner.isAssignableTo("org.hibernate.reactive.mutiny.Mutiny$QueryProducer")) {
            return SESSION_QUERY.matcher(name).matches();
        }
        // A call on a mapped entity (TrainingPlan.find(...)) names the entity, not PanacheEntityBase, as its owner.
        boolean panache = owner.isAssignableTo("io.quarkus.hibernate.reactive.panache.PanacheEntityBase")
                || owner.isAssignableTo("io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase")
                || owner.isAssignableTo("io.quarkus.hibernate.orm.panache.PanacheEntityBase")
                || owner.isAssignableTo("io.quarkus.hibernate.orm.panache.PanacheRepositoryBase")
                || owner.getFullName().equals("io.quarkus.hibernate.reactive.panache.Panache")
                || owner.getFullName().equals("io.quarkus.hibernate.orm.panache.Panache");
        // A repository's own method (TrainingPlanRepository.findMine) is where the query belongs: only the methods
        // Panache declares count.
        boolean declaredByPanache = call.getTarget().resolveMember()
                .map(method -> method.getOwner().getPackageName().startsWith("io.quarkus.hibernate"))
                .orElse(true);
        return panache && declaredByPanache && PANACHE_QUERY.matcher(name).matches();
    }
}
