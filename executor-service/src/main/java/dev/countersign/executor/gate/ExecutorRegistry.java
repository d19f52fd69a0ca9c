package dev.countersign.executor.gate;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

import org.jboss.logging.Logger;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;

/**
 * Finds the executor of an action kind. Start-up fails if two executors claim one kind or one claims a kind the
 * catalogue does not list. A catalogue kind without an executor here (the external writes, until they are built) is
 * rejected at staging with {@code kind_not_supported}, so nobody is asked to confirm what cannot run.
 */
@ApplicationScoped
public class ExecutorRegistry {

    private static final Logger LOG = Logger.getLogger(ExecutorRegistry.class);

    private final Map<String, ActionExecutor> byKind = new HashMap<>();

    public ExecutorRegistry(Instance<ActionExecutor> executors) {
        for (ActionExecutor executor : executors) {
            if (byKind.put(executor.kind(), executor) != null) {
                throw new IllegalStateException("Two executors for " + executor.kind());
            }
        }
        for (String kind : byKind.keySet()) {
            if (ActionCatalogue.find(kind).isEmpty()) {
                throw new IllegalStateException("An executor for " + kind + ", which the catalogue does not list");
            }
        }
        List<String> unsupported = ActionCatalogue.all().stream().map(ActionDefinition::kind)
                .filter(kind -> !byKind.containsKey(kind)).toList();
        if (!unsupported.isEmpty()) {
            LOG.infof("Proposals of these catalogue kinds are rejected (kind_not_supported): %s", unsupported);
        }
    }

    public Optional<ActionExecutor> forKind(String kind) {
        return Optional.ofNullable(byKind.get(kind));
    }
}
