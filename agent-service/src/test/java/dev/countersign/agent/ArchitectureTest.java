package dev.countersign.agent;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Pattern;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.hibernate.reactive.mutiny.Mutiny;
import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;

import dev.countersign.agent.ledger.StoredWallet;
import dev.countersign.devsupport.testing.ArchitectureRules;
import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;

/**
 * The agent's structure, held by ArchUnit on its compiled classes: its packages form no cycle (chat over act and plan
 * mode, over tools, over turn, over conversation, evidence and the readers); nothing in it reaches write code (the
 * executor's classes, a Kafka producer of its own, an ORM call that persists, updates or deletes); and no REST resource
 * runs SQL (the readers do). Each rule is also shown to fail on a planted class that breaks it.
 * <p>
 * Limit: these rules read class files, so SQL text is not judged here; the read-only role and {@link BoundaryTest}
 * (writing SQL in any shipped class, the database's answer to the agent's credentials) hold that line.
 */
class ArchitectureTest {

    /**
     * An ORM call that writes: Hibernate Reactive's session and stateless session (their batch forms included:
     * insertAll, updateMultiple, upsert, removeAll, mergeAll, found missing in review) or Panache's entity and
     * repository methods. Limit: SQL text is not judged; a native DML statement read through a selection query passes
     * this rule, and only the reader role's grants (SELECT) stop it.
     */
    private static final Pattern ORM_WRITE = Pattern.compile("persist.*|merge.*|remove.*|delete.*|update.*|upsert.*"
            + "|insert.*|flush|refresh|lock|executeUpdate|createMutationQuery");

    static final ArchRule NOTHING_REACHES_WRITE_CODE = noClasses().should()
            .dependOnClassesThat().resideInAnyPackage("dev.countersign.executor..",
                    "org.apache.kafka.clients.producer..")
            .orShould().callMethodWhere(describe("an ORM method that writes", (JavaMethodCall call) -> {
                JavaClass owner = call.getTargetOwner();
                // A call on a mapped entity (StoredWallet.persist(), StoredWallet.deleteAll()) names the entity, not
                // PanacheEntityBase, as its owner in the class file: hence the assignability check.
                boolean orm = owner.getPackageName().startsWith("io.quarkus.hibernate")
                        || owner.getPackageName().startsWith("org.hibernate")
                        || owner.isAssignableTo(PanacheEntityBase.class)
                        || owner.isAssignableTo(PanacheRepositoryBase.class)
                        || owner.isAssignableTo(Mutiny.Session.class)
                        || owner.isAssignableTo(Mutiny.StatelessSession.class);
                return orm && ORM_WRITE.matcher(call.getName()).matches();
            }))
            .because("agent-service proposes; executor-service alone writes");

    private static final JavaClasses AGENT = ArchitectureRules.mainClasses("dev.countersign.agent");

    @Test
    void theAgentsPackagesFormNoCycle() {
        ArchitectureRules.packagesFormNoCycle("dev.countersign.agent").check(AGENT);
    }

    @Test
    void nothingInTheAgentReachesWriteCode() {
        NOTHING_REACHES_WRITE_CODE.check(AGENT);
    }

    @Test
    void noResourceRunsSql() {
        ArchitectureRules.resourcesRunNoSql().check(AGENT);
    }

    @Test
    void eachRuleFailsOnAClassThatBreaksIt() {
        JavaClasses planted = new ClassFileImporter().importClasses(PlantedSqlResource.class, PlantedProducer.class,
                CycleA.class, CycleB.class);

        assertThat(ArchitectureRules.resourcesRunNoSql().evaluate(planted).hasViolation()).isTrue();
        assertThat(NOTHING_REACHES_WRITE_CODE.evaluate(planted).hasViolation()).isTrue();
        assertThat(ArchitectureRules.classesFormNoCycle().evaluate(planted).hasViolation()).isTrue();
    }

    @Test
    void theWriteRuleFailsOnEachKindOfOrmWrite() {
        for (Class<?> planted : List.of(PlantedEntityPersist.class, PlantedStaticDelete.class,
                PlantedSessionMerge.class, PlantedQueryUpdate.class)) {
            assertThat(NOTHING_REACHES_WRITE_CODE.evaluate(new ClassFileImporter().importClasses(planted))
                    .hasViolation()).as(planted.getSimpleName()).isTrue();
        }
    }

    @Test
    void theWriteRulePassesAMappedRead() {
        assertThat(NOTHING_REACHES_WRITE_CODE.evaluate(new ClassFileImporter().importClasses(PlantedRead.class))
                .hasViolation()).isFalse();
    }

    /** {@code entity.persist()}: the class file names the entity as the call's owner. */
    static class PlantedEntityPersist {

        Uni<StoredWallet> write(StoredWallet wallet) {
            return wallet.persist();
        }
    }

    static class PlantedStaticDelete {

        Uni<Long> write() {
            return StoredWallet.delete("tenantId", "t1");
        }
    }

    static class PlantedSessionMerge {

        Uni<StoredWallet> write(Mutiny.Session session, StoredWallet wallet) {
            return session.merge(wallet).call(session::flush);
        }
    }

    static class PlantedQueryUpdate {

        Uni<Integer> write(Mutiny.Session session) {
            return session.createMutationQuery("update StoredWallet set name = 'x'").executeUpdate();
        }
    }

    /** What the readers do: a read must not trip the rule, or the rule would be switched off. */
    static class PlantedRead {

        Uni<StoredWallet> read(Mutiny.Session session, java.util.UUID id) {
            return session.find(StoredWallet.class, id);
        }
    }

    @Path("/planted")
    static class PlantedSqlResource {

        Pool pool;

        /** In a lambda, as a resource would run it in a tenant transaction: still the resource's own call. */
        @GET
        public Object rows() {
            return Uni.createFrom().item(pool).flatMap(client -> client.query("SELECT 1").execute());
        }
    }

    static class PlantedProducer {

        void send(KafkaProducer<String, String> producer) {
            producer.send(new ProducerRecord<>("countersign.actions.decisions", "forged"));
        }
    }

    static class CycleA {

        CycleB next;
    }

    static class CycleB {

        CycleA back;
    }
}
