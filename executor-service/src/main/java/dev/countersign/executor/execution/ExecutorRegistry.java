package dev.countersign.executor.execution;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.jboss.logging.Logger;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.executor.external.ExternalExecutor;

/**
 * Finds the executor of an action kind: one that writes inside the confirming transaction ({@link ActionExecutor}) or
 * one that calls outside ({@link ExternalExecutor}, only when its vendor is configured). Start-up fails if two
 * executors claim one kind or one claims a kind the catalogue does not list. A catalogue kind without an executor here
 * (an external kind whose vendor is not configured) is rejected at staging with {@code kind_not_supported}, so nobody
 * is asked to confirm what cannot run.
 */
@ApplicationScoped
public class ExecutorRegistry {

    private static final Logger LOG = Logger.getLogger(ExecutorRegistry.class);

    private final Map<String, ActionExecutor> byKind = new HashMap<>();
    private final Map<String, ExternalExecutor> externalByKind = new HashMap<>();

    @Inject
    public ExecutorRegistry(Instance<ActionExecutor> executors, Instance<ExternalExecutor> externalExecutors) {
        this((Iterable<ActionExecutor>) executors, externalExecutors);
    }

    ExecutorRegistry(Iterable<ActionExecutor> executors, Iterable<ExternalExecutor> externalExecutors) {
        for (ActionExecutor executor : executors) {
            if (byKind.put(executor.kind(), executor) != null) {
                throw new IllegalStateException("Two executors for " + executor.kind());
            }
        }
        for (ExternalExecutor executor : externalExecutors) {
            if (byKind.containsKey(executor.kind()) || externalByKind.containsKey(executor.kind())) {
                throw new IllegalStateException("Two executors for " + executor.kind());
            }
            if (executor.isConfigured()) {
                externalByKind.put(executor.kind(), executor);
            }
        }
        for (String kind : java.util.stream.Stream.concat(byKind.keySet().stream(), externalByKind.keySet().stream())
                .toList()) {
            if (ActionCatalogue.find(kind).isEmpty()) {
                throw new IllegalStateException("An executor for " + kind + ", which the catalogue does not list");
            }
        }
        List<String> unsupported = ActionCatalogue.all().stream().map(ActionDefinition::kind)
                .filter(kind -> !isExecutable(kind)).toList();
        if (!unsupported.isEmpty()) {
            LOG.infof("Proposals of these catalogue kinds are rejected (kind_not_supported): %s", unsupported);
        }
    }

    /** Whether this executor can carry out {@code kind} (an external kind only when its vendor is configured). */
    public boolean isExecutable(String kind) {
        return byKind.containsKey(kind) || externalByKind.containsKey(kind);
    }

    /** The executor of an external kind (claim, call, record), if configured here. */
    public Optional<ExternalExecutor> externalFor(String kind) {
        return Optional.ofNullable(externalByKind.get(kind));
    }

    /** The executor of a kind written inside the confirming transaction. */
    public Optional<ActionExecutor> forKind(String kind) {
        return Optional.ofNullable(byKind.get(kind));
    }

    /** The inverse of {@code kind}'s write, if its executor has one. */
    public Optional<Undoable> undoerFor(String kind) {
        return forKind(kind).filter(Undoable.class::isInstance).map(Undoable.class::cast);
    }
}
