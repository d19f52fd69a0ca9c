package dev.countersign.executor.gate;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;

/** Finds the executor of an action kind. Start-up fails if a catalogue kind has no executor, or two claim one. */
@ApplicationScoped
public class ExecutorRegistry {

    private final Map<String, ActionExecutor> byKind = new HashMap<>();

    public ExecutorRegistry(Instance<ActionExecutor> executors) {
        for (ActionExecutor executor : executors) {
            if (byKind.put(executor.kind(), executor) != null) {
                throw new IllegalStateException("Two executors for " + executor.kind());
            }
        }
        for (ActionDefinition definition : ActionCatalogue.all()) {
            if (!byKind.containsKey(definition.kind())) {
                throw new IllegalStateException("No executor for catalogue kind " + definition.kind());
            }
        }
    }

    public Optional<ActionExecutor> forKind(String kind) {
        return Optional.ofNullable(byKind.get(kind));
    }
}
