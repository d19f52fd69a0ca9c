package dev.countersign.executor.execution;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.jboss.logging.Logger;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.executor.kind.ActionKind;
import dev.countersign.executor.kind.DatabaseKind;
import dev.countersign.executor.kind.ExternalKind;
import dev.countersign.executor.kind.Undoable;

/**
 * Finds the executor part of an action kind (its folder under {@code dev.countersign.executor.kinds}, found as a CDI
 * bean): one that writes inside the confirming transaction ({@link DatabaseKind}) or one that calls outside
 * ({@link ExternalKind}, executable only when its vendor is configured). Start-up fails if two parts claim one kind,
 * one claims a kind the catalogue does not list, or a database kind declares no owner of the row it writes (the
 * decision rule would read it as the requester's own). A catalogue kind without a part here (an external kind whose
 * vendor is not configured) is rejected at staging with {@code kind_not_supported}, so nobody is asked to confirm what
 * cannot run.
 */
@ApplicationScoped
public class ExecutorRegistry {

    private static final Logger LOG = Logger.getLogger(ExecutorRegistry.class);

    private final Map<String, ActionKind> all = new HashMap<>();
    private final Map<String, DatabaseKind> databaseKinds = new HashMap<>();
    private final Map<String, ExternalKind> externalKinds = new HashMap<>();

    @Inject
    public ExecutorRegistry(Instance<DatabaseKind> databaseKinds, Instance<ExternalKind> externalKinds) {
        this((Iterable<DatabaseKind>) databaseKinds, externalKinds);
    }

    /**
     * A kind function's name: a plain SQL identifier (the gate names a function by it and its arguments, so overloads
     * and same-named functions elsewhere are not confused with it).
     */
    private static final Pattern SQL_FUNCTION = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    ExecutorRegistry(Iterable<DatabaseKind> databaseParts, Iterable<ExternalKind> externalParts) {
        for (DatabaseKind part : databaseParts) {
            register(part);
            if (!part.owner().isOwned()) {
                throw new IllegalStateException("The database kind " + part.kind() + " writes a row nobody owns;"
                        + " declare whose it is (a row's owner, or the requester)");
            }
            if (new HashSet<>(functionsOf(part)).size() < functionsOf(part).size()) {
                throw new IllegalStateException("The database kind " + part.kind() + " names one function for its"
                        + " write and its undo");
            }
            for (String function : functionsOf(part)) {
                if (!SQL_FUNCTION.matcher(function).matches()) {
                    throw new IllegalStateException("The database kind " + part.kind() + " names its function "
                            + function + "; a lower-case SQL name of letters, digits and underscores expected");
                }
                databaseKinds.values().stream().filter(other -> functionsOf(other).contains(function)).findAny()
                        .ifPresent(other -> {
                            throw new IllegalStateException("The database kinds " + other.kind() + " and "
                                    + part.kind() + " name one function, " + function);
                        });
            }
            databaseKinds.put(part.kind(), part);
        }
        for (ExternalKind part : externalParts) {
            register(part);
            if (part.isConfigured()) {
                externalKinds.put(part.kind(), part);
            }
        }
        List<String> unsupported = ActionCatalogue.all().stream().map(ActionDefinition::kind)
                .filter(kind -> !isExecutable(kind)).toList();
        if (!unsupported.isEmpty()) {
            LOG.infof("Proposals of these catalogue kinds are rejected (kind_not_supported): %s", unsupported);
        }
    }

    private void register(ActionKind part) {
        ActionDefinition declared = ActionCatalogue.find(part.kind()).orElseThrow(() -> new IllegalStateException(
                "An executor for " + part.kind() + ", which the catalogue does not list"));
        // The declaration's domain decides auto-apply, the agent's offer and the database's guard; the part decides
        // how it runs: they must agree, or an external call could be applied on arrival (or refused by the guard).
        if (declared.isExternal() != part instanceof ExternalKind) {
            throw new IllegalStateException("The executor for " + part.kind() + " is " + (part instanceof ExternalKind
                    ? "external, but its declaration's domain is not external"
                    : "a database kind, but its declaration's domain is external"));
        }
        if (all.put(part.kind(), part) != null) {
            throw new IllegalStateException("Two executors for " + part.kind());
        }
    }

    /** Whether this executor can carry out {@code kind} (an external kind only when its vendor is configured). */
    public boolean isExecutable(String kind) {
        return databaseKinds.containsKey(kind) || externalKinds.containsKey(kind);
    }

    /** The part of {@code kind} (its target and owner), configured here or not. */
    public Optional<ActionKind> find(String kind) {
        return Optional.ofNullable(all.get(kind));
    }

    /** Every external kind's part, configured here or not. */
    public List<ExternalKind> externalKinds() {
        return all.values().stream().filter(ExternalKind.class::isInstance).map(ExternalKind.class::cast).toList();
    }

    /** The part of an external kind (claim, call, record), if configured here. */
    public Optional<ExternalKind> externalFor(String kind) {
        return Optional.ofNullable(externalKinds.get(kind));
    }

    /** The SQL functions a database kind names: its write, and its undo if it has one. */
    static List<KindFunction> kindFunctionsOf(DatabaseKind kind) {
        KindFunction write = new KindFunction(kind.writeFunction(), kind.writeProcedure(), "jsonb");
        return kind instanceof Undoable undoable
                ? List.of(write, new KindFunction(undoable.undoFunction(), undoable.undoProcedure(), "void"))
                : List.of(write);
    }

    /** The names of {@link #kindFunctionsOf}. */
    static List<String> functionsOf(DatabaseKind kind) {
        return kindFunctionsOf(kind).stream().map(KindFunction::name).toList();
    }

    /**
     * A database kind's SQL function.
     *
     * @param procedure
     *            its name with its argument types, as the gate names it
     * @param answers
     *            the type it must answer
     */
    record KindFunction(String name, String procedure, String answers) {
    }

    /** The database kinds this build runs. */
    public Collection<DatabaseKind> databaseKinds() {
        return List.copyOf(databaseKinds.values());
    }

    /** The part of a kind written inside the confirming transaction. */
    public Optional<DatabaseKind> forKind(String kind) {
        return Optional.ofNullable(databaseKinds.get(kind));
    }

    /** The inverse of {@code kind}'s write, if its part has one. */
    public Optional<Undoable> undoerFor(String kind) {
        return forKind(kind).filter(Undoable.class::isInstance).map(Undoable.class::cast);
    }
}
