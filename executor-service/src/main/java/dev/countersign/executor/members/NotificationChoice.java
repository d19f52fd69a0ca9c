package dev.countersign.executor.members;

import jakarta.validation.constraints.NotNull;

/**
 * {@code GET|PUT /api/me/notifications}: the channels a person chooses to be told through that an action waits for
 * them. {@code address}: the verified e-mail address the executor last saw in their token (read only).
 */
public record NotificationChoice(@NotNull Boolean email, @NotNull Boolean webhook, String address) {
}
