package dev.countersign.executor;

import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.JavaClasses;

import dev.countersign.devsupport.testing.ArchitectureRules;

/**
 * executor-service's structure, held by ArchUnit on its compiled classes (the rules, and a demonstration that each
 * fails on a class that breaks it, are in agent-service's ArchitectureTest and dev-support's ArchitectureRules). The
 * guard on outbound calls is {@link ExternalGateArchitectureTest}.
 */
class ArchitectureTest {

    private static final JavaClasses EXECUTOR = ArchitectureRules.mainClasses("dev.countersign.executor");

    @Test
    void theExecutorsPackagesFormNoCycle() {
        ArchitectureRules.packagesFormNoCycle("dev.countersign.executor").check(EXECUTOR);
    }

    @Test
    void noResourceRunsSql() {
        ArchitectureRules.resourcesRunNoSql().check(EXECUTOR);
    }
}
