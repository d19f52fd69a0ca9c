package dev.countersign.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;

import jakarta.ws.rs.Path;

import org.hibernate.reactive.mutiny.Mutiny;
import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;

import dev.countersign.devsupport.testing.ArchitectureRules;
import dev.countersign.executor.action.ActionRow;
import dev.countersign.executor.kind.PlantedInterfaceReadingTheGate;
import dev.countersign.executor.kinds.PlantedKindReadingTheGate;
import dev.countersign.executor.training.TrainingPlan;
import dev.countersign.executor.training.TrainingPlanRepository;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * executor-service's structure, held by ArchUnit on its compiled classes (the rules are in dev-support's
 * ArchitectureRules). Each kind of query the resource rule knows is shown to fail it on a planted resource below, and a
 * resource calling a repository's own named method is shown to pass, so a rule that finds nothing in the shipped
 * classes means something. The guard on outbound calls is {@link ExternalGateArchitectureTest}.
 * <p>
 * The planted resources carry {@code @Path} but no HTTP method, so the test application serves nothing from them.
 */
class ArchitectureTest {

    private static final JavaClasses EXECUTOR = ArchitectureRules.mainClasses("dev.countersign.executor");

    @Test
    void theExecutorsPackagesFormNoCycle() {
        ArchitectureRules.packagesFormNoCycle("dev.countersign.executor").check(EXECUTOR);
    }

    /**
     * A kind's folder depends on the interface package only (and the contracts and libraries), the interface package on
     * nothing else of the gate, and nothing of the gate on a kind: a kind is added or removed without touching the
     * gate.
     */
    @Test
    void theKindsAndTheGateMeetOnlyInTheInterfacePackage() {
        KindBoundary.kindsUseOnlyTheInterface().check(EXECUTOR);
        KindBoundary.interfaceUsesNothingOfTheGate().check(EXECUTOR);
        KindBoundary.gateUsesNoKind().check(EXECUTOR);
    }

    /** Each boundary rule is shown to find its planted breach, and to pass what the others breach. */
    @Test
    void eachKindBoundaryRuleFailsOnItsPlantedBreach() {
        JavaClasses planted = new ClassFileImporter().importClasses(PlantedKindReadingTheGate.class,
                PlantedInterfaceReadingTheGate.class, PlantedGateNamingAKind.class, ActionRow.class);
        assertThat(KindBoundary.kindsUseOnlyTheInterface().evaluate(planted).getFailureReport().getDetails())
                .isNotEmpty().allSatisfy(detail -> assertThat(detail).contains("PlantedKindReadingTheGate"));
        assertThat(KindBoundary.interfaceUsesNothingOfTheGate().evaluate(planted).getFailureReport().getDetails())
                .isNotEmpty().allSatisfy(detail -> assertThat(detail).contains("PlantedInterfaceReadingTheGate"));
        assertThat(KindBoundary.gateUsesNoKind().evaluate(planted).getFailureReport().getDetails())
                .isNotEmpty().allSatisfy(detail -> assertThat(detail).contains("PlantedGateNamingAKind"));
    }

    @Test
    void noResourceRunsSql() {
        ArchitectureRules.resourcesRunNoSql().check(EXECUTOR);
    }

    @Test
    void theResourceRuleFailsOnEachKindOfQuery() {
        for (Class<?> planted : List.of(PlantedSqlClientResource.class, PlantedNativeQueryResource.class,
                PlantedSelectionQueryResource.class, PlantedMutationQueryResource.class,
                PlantedHqlQueryResource.class, PlantedStaticPanacheResource.class,
                PlantedInheritedRepositoryQueryResource.class, PlantedPanacheUpdateResource.class)) {
            assertThat(ArchitectureRules.resourcesRunNoSql().evaluate(new ClassFileImporter().importClasses(planted))
                    .hasViolation()).as(planted.getSimpleName()).isTrue();
        }
    }

    @Test
    void theResourceRulePassesARepositorysNamedMethod() {
        assertThat(ArchitectureRules.resourcesRunNoSql()
                .evaluate(new ClassFileImporter().importClasses(PlantedRepositoryCallResource.class))
                .hasViolation()).isFalse();
    }

    @Path("/planted/sql-client")
    static class PlantedSqlClientResource {

        Object rows(SqlClient sql) {
            return sql.preparedQuery("SELECT 1").execute();
        }
    }

    @Path("/planted/native")
    static class PlantedNativeQueryResource {

        /** In a lambda, as a resource would run it in a tenant session: still the resource's own call. */
        Object rows() {
            return Panache.getSession().flatMap(session -> session.createNativeQuery("SELECT 1").getResultList());
        }
    }

    @Path("/planted/selection")
    static class PlantedSelectionQueryResource {

        Object rows(Mutiny.Session session) {
            return session.createSelectionQuery("from TrainingPlan", TrainingPlan.class).getResultList();
        }
    }

    @Path("/planted/mutation")
    static class PlantedMutationQueryResource {

        Object rows(Mutiny.Session session) {
            return session.createMutationQuery("update TrainingPlan set name = 'x'").executeUpdate();
        }
    }

    @Path("/planted/hql")
    static class PlantedHqlQueryResource {

        Object rows(Mutiny.Session session) {
            return session.createQuery("from TrainingPlan", TrainingPlan.class).getResultList();
        }
    }

    /**
     * A static Panache query as an entity extending {@code PanacheEntityBase} would run it (the executor maps none that
     * way; the class file names the entity as owner, which the rule matches by assignability, as here the base itself).
     */
    @Path("/planted/static")
    static class PlantedStaticPanacheResource {

        Object rows() {
            return PanacheEntityBase.find("tenantId", "t1").list();
        }
    }

    @Path("/planted/inherited")
    static class PlantedInheritedRepositoryQueryResource {

        Object rows(TrainingPlanRepository plans) {
            return plans.list("tenantId", "t1");
        }
    }

    @Path("/planted/update")
    static class PlantedPanacheUpdateResource {

        Object rows(TrainingPlanRepository plans) {
            return plans.update("status = 'archived' where tenantId = ?1", "t1");
        }
    }

    /** What resources do: call a repository's method named for what it reads. */
    @Path("/planted/repository")
    static class PlantedRepositoryCallResource {

        Uni<TrainingPlan> rows(TrainingPlanRepository plans) {
            return plans.findMine(UUID.randomUUID(), "t1", "u1");
        }
    }
}
