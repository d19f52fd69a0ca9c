package dev.countersign.executor;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.lang.ArchRule;

/** The rules that keep the action kinds plug-ins: they and the gate meet only in {@code executor.kind}. */
final class KindBoundary {

    private static final String GATE = "dev.countersign.executor..";
    private static final String INTERFACE = "dev.countersign.executor.kind";
    private static final String KINDS = "dev.countersign.executor.kinds..";

    private KindBoundary() {
    }

    static ArchRule kindsUseOnlyTheInterface() {
        return noClasses().that().resideInAPackage(KINDS).should().dependOnClassesThat(
                resideInAPackage(GATE).and(resideInAnyPackage(INTERFACE, KINDS).negate()))
                .because("a kind reaches the gate through dev.countersign.executor.kind only");
    }

    static ArchRule interfaceUsesNothingOfTheGate() {
        return noClasses().that().resideInAPackage(INTERFACE).should().dependOnClassesThat(
                resideInAPackage(GATE).and(resideInAPackage(INTERFACE).negate()))
                .because("the interface package is the gate's contract with the kinds, and depends on neither");
    }

    static ArchRule gateUsesNoKind() {
        return noClasses().that().resideOutsideOfPackage(KINDS).should().dependOnClassesThat()
                .resideInAPackage(KINDS).because("the gate finds the kinds as beans and never names one");
    }
}
