package dev.countersign.executor;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.countersign.devsupport.testing.TestInfrastructure;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;

/** The one set of test resources every executor test uses, so Quarkus boots the application once per module run. */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@WithTestResource(value = TestInfrastructure.class, initArgs = @ResourceArg(name = "service", value = "executor"))
public @interface ExecutorTestResources {
}
