package dev.countersign.executor.action;

/**
 * What a database kind's write came to ({@link ActionRepository#execute}): the action as stored executed, or the kind's
 * refusal (its code's wire name and reason; {@code moved}: its guarded write matched no row), the action still
 * confirmed.
 */
public record KindWrite(ActionRow executed, String refusal, String reason, boolean moved) {

    static KindWrite written(ActionRow executed) {
        return new KindWrite(executed, null, null, false);
    }

    static KindWrite refused(String refusal, String reason, boolean moved) {
        return new KindWrite(null, refusal, reason, moved);
    }
}
