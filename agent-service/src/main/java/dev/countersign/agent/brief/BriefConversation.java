package dev.countersign.agent.brief;

import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Where scheduled briefs are recorded: the conversation {@code brief-<yyyy-MM-dd>} of each user, one turn per day,
 * whose event and turn ids are derived from tenant, user and day. So every replica that runs the schedule publishes the
 * same event, and the executor appends it once; and a brief is told from a turn the user typed into a conversation of
 * that name by its event id, which only the schedule produces.
 */
public final class BriefConversation {

    /** The user text of a recorded brief. */
    public static final String USER_TEXT = "Daily brief (scheduled)";
    /** How far back the last brief is looked for; a user without one in that time gets the first window. */
    public static final int LOOKBACK_DAYS = 62;

    private BriefConversation() {
    }

    public static String id(LocalDate day) {
        return "brief-" + day;
    }

    public static UUID eventId(String tenantId, String userId, LocalDate day) {
        return derived("event", tenantId, userId, day);
    }

    public static UUID turnId(String tenantId, String userId, LocalDate day) {
        return derived("turn", tenantId, userId, day);
    }

    /** The event ids the user's briefs of the look-back would have, up to the day after {@code today}. */
    static List<UUID> recentEventIds(String tenantId, String userId, LocalDate today) {
        return Stream.iterate(today.plusDays(1), day -> day.minusDays(1)).limit(LOOKBACK_DAYS + 1L)
                .map(day -> eventId(tenantId, userId, day)).toList();
    }

    /** Tenant and user ids hold no control characters (Identifiers.isPrintableId), so a line break separates them. */
    private static UUID derived(String what, String tenantId, String userId, LocalDate day) {
        return UUID.nameUUIDFromBytes(String.join("\n", "countersign.brief", what, tenantId, userId, day.toString())
                .getBytes(StandardCharsets.UTF_8));
    }
}
