package dev.countersign.executor;

import dev.countersign.executor.kinds.PlantedKindReadingTheGate;

/** A gate class that names a kind: what the gate rule must find (ArchitectureTest). */
class PlantedGateNamingAKind {

    PlantedKindReadingTheGate kind;
}
