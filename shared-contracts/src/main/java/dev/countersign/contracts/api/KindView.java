package dev.countersign.contracts.api;

import java.util.List;
import java.util.Map;

import dev.countersign.contracts.catalogue.ActionDefinition;
import dev.countersign.contracts.catalogue.ParamSpec;

/**
 * One action kind as a person's page shows it, from its declaration: what it is called, which of its parameters name a
 * row of which type ({@code refersTo}: {@code walletId -> wallet}), and whether an executed action of it can be undone
 * here (false where the page cannot undo anything), and which parameters a person may change before approving.
 */
public record KindView(String kind, String label, Map<String, String> refersTo, boolean undoable,
        List<EditableParam> personEditable) {

    /** A parameter a person may change before approving, with its type as the catalogue declares it. */
    public record EditableParam(String name, String type, int maxLength) {
    }

    /** {@code definition} as a page shows it. */
    public static KindView of(ActionDefinition definition, boolean undoable) {
        Map<String, String> refersTo = new java.util.LinkedHashMap<>();
        for (ParamSpec param : definition.params()) {
            if (param.refersTo() != null) {
                refersTo.put(param.name(), param.refersTo());
            }
        }
        List<EditableParam> editable = definition.params().stream()
                .filter(param -> definition.personEditable().contains(param.name()))
                .map(param -> new EditableParam(param.name(), param.type().name().toLowerCase(java.util.Locale.ROOT),
                        param.maxLength()))
                .toList();
        return new KindView(definition.kind(), definition.label(), Map.copyOf(refersTo), undoable, editable);
    }
}
