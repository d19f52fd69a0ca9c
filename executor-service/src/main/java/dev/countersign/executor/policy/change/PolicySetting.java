package dev.countersign.executor.policy.change;

import java.util.function.BiPredicate;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;

import dev.countersign.contracts.json.Json;
import dev.countersign.executor.policy.PolicySettingsRepository;
import io.smallrye.mutiny.Uni;

/**
 * One setting of a tenant's policy as the two-person rule sees it: its name (the last segment of its path under
 * {@code /api/actions/policy/}), how to read and write it, and which change of it weakens protection
 * ({@link #loosens}). Every one is in {@link PolicySettings}.
 *
 * @param essence
 *            what of a value counts when comparing it with the value a change was proposed against (not who set it, nor
 *            when)
 */
public record PolicySetting<T>(String name, Class<T> type, Reader<T> reader, Writer<T> writer,
        BiPredicate<T, T> loosening, Function<T, Object> essence) {

    /** Reads the setting in the caller's tenant session. */
    @FunctionalInterface
    public interface Reader<T> {

        Uni<T> read(PolicySettingsRepository policies, String tenantId);
    }

    /** Writes the setting in the caller's tenant session; answers it as stored. */
    @FunctionalInterface
    public interface Writer<T> {

        Uni<T> write(PolicySettingsRepository policies, String tenantId, T value, String by);
    }

    /** Whether going from {@code current} to {@code proposed} weakens the tenant's protection. */
    public boolean loosens(T current, T proposed) {
        return loosening.test(current, proposed);
    }

    /** {@code value}'s essence as JSON, as a change stores and compares it. */
    public JsonNode essenceOf(T value) {
        return Json.mapper().valueToTree(essence.apply(value));
    }

    /** A value of this setting from its JSON (a stored change's). */
    public T valueOf(JsonNode json) {
        return Json.mapper().convertValue(json, type);
    }
}
