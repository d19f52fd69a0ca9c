package dev.countersign.executor.kind;

import dev.countersign.executor.action.ActionRow;

/** An interface type that reads the gate's own row type: what the interface rule must find (ArchitectureTest). */
public interface PlantedInterfaceReadingTheGate {

    ActionRow row();
}
