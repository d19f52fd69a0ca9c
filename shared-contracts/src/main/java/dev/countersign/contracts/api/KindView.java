package dev.countersign.contracts.api;

import java.util.Map;

import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.contracts.catalogue.ParamSpec;

/**
 * One action kind as a person's page shows it, from its declaration: what it is called, which of its parameters name a
 * row of which type ({@code refersTo}: {@code walletId -> wallet}), and whether an executed action of it can be undone
 * here (false where the page cannot undo anything).
 */
public record KindView(String kind, String label, Map<String, String> refersTo, boolean undoable) {

    /** {@code definition} as a page shows it. */
    public static KindView of(ActionDefinition definition, boolean undoable) {
        Map<String, String> refersTo = new java.util.LinkedHashMap<>();
        for (ParamSpec param : definition.params()) {
            if (param.refersTo() != null) {
                refersTo.put(param.name(), param.refersTo());
            }
        }
        return new KindView(definition.kind(), definition.label(), Map.copyOf(refersTo), undoable);
    }
}
