package dev.countersign.executor.kinds;

import dev.countersign.executor.action.ActionRow;

/** A kind that reads the gate's own row type: what the kind boundary rule must find (ArchitectureTest). */
public class PlantedKindReadingTheGate {

    String decidedBy(ActionRow row) {
        return row.confirmedBy();
    }
}
