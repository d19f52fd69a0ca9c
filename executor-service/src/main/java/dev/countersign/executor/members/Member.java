package dev.countersign.executor.members;

import java.time.Instant;

/**
 * A person of a tenant as the executor last saw them sign in ({@code tenant_members}): their groups, username and
 * verified e-mail address then, and their own choice of channels (with the webhook URL they named, and its body's
 * format; whether they are asked on their second device). Who may decide is never read from here: a decision checks the
 * live token.
 */
public record Member(String tenantId, String userId, String username, String email, boolean approver, boolean admin,
        Instant seenAt, boolean notifyEmail, boolean notifyWebhook, String webhookUrl, String webhookFormat,
        boolean notifySecondDevice) {
}
