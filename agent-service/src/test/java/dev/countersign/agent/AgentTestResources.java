package dev.countersign.agent;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.countersign.devsupport.testing.TestInfrastructure;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;

/**
 * The one set of test resources of every agent test. The schema comes from executor-service's own migration files, read
 * from the source tree (a file path, not a code dependency): the agent owns no schema.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@WithTestResource(value = TestInfrastructure.class, initArgs = {
        @ResourceArg(name = "service", value = "agent"),
        @ResourceArg(name = "migrations", value = "filesystem:../executor-service/src/main/resources/db/migration")})
public @interface AgentTestResources {
}
