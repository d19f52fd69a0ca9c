package dev.countersign.contracts.api;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.catalogue.ActionCatalogue;
import dev.countersign.contracts.catalogue.ActionDefinition;

/** One field an action changes: its value when the action was staged, and the value it will write. */
public record FieldChange(String field, String before, String after) {

    /**
     * The catalogue's editable fields of {@code kind} that the parameters set, paired with the target's fields as
     * staged; empty when the kind edits nothing or no target was recorded.
     */
    public static List<FieldChange> between(String kind, JsonNode targetBefore, JsonNode params) {
        ActionDefinition definition = ActionCatalogue.find(kind).orElse(null);
        if (definition == null || targetBefore == null || params == null) {
            return List.of();
        }
        List<FieldChange> changes = new ArrayList<>();
        for (var spec : definition.params()) {
            String field = spec.name();
            if (definition.editableFields().contains(field) && params.hasNonNull(field)) {
                JsonNode before = targetBefore.get(field);
                changes.add(new FieldChange(field, before == null || before.isNull() ? null : before.asText(),
                        params.get(field).asText()));
            }
        }
        return List.copyOf(changes);
    }
}
