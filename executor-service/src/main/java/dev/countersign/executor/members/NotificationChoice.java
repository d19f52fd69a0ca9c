package dev.countersign.executor.members;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * {@code GET|PUT /api/me/notifications}: the channels a person chooses to be told through that an action waits for
 * them. {@code address}: the verified e-mail address the executor last saw in their token (read only).
 * {@code webhookUrl}: where their webhook messages go (none: no webhook), in {@code webhookFormat}: {@code standard}
 * (Countersign's JSON, the default) or {@code slack} (a Slack-compatible {@code {"text": ...}}); a message is sent
 * there only while the URL's origin is on the tenant's allow-list ({@code webhookAllowed}, read only), signed with
 * {@code webhookSecret} (read only: a Standard Webhooks key for this person and this URL, which their receiver verifies
 * with; nobody else reads it). {@code secondDevice}: whether they are asked on their second device (OpenID CIBA,
 * through the identity provider, by their username there) to approve HIGH actions they may decide, where the executor
 * has second-device approvals on; off when left out. A PUT replaces the whole choice: a URL left out is removed.
 */
public record NotificationChoice(@NotNull Boolean email, @NotNull Boolean webhook, Boolean secondDevice, String address,
        @Size(max = 2048, message = "at most 2048 characters") @Pattern(regexp = WEBHOOK_URL, message = "must be an http or https URL without user information, spaces or a fragment, such as https://hooks.example.com/T1/B2") String webhookUrl,
        @Pattern(regexp = "standard|slack", message = "must be standard or slack") String webhookFormat,
        Boolean webhookAllowed, String webhookSecret) {

    /**
     * An absolute http(s) URL: a host of letters, digits, dots and hyphens, an optional port, then a path and query of
     * RFC 3986 characters and percent escapes only (no user information, no fragment, nothing java.net.URI refuses).
     * The database checks the same expression (V36).
     */
    public static final String WEBHOOK_URL = "https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?([/?]([A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?";

    public static final String STANDARD = "standard";

    public String webhookFormatOrDefault() {
        return webhookFormat == null ? STANDARD : webhookFormat;
    }

    public boolean secondDeviceOrDefault() {
        return Boolean.TRUE.equals(secondDevice);
    }
}
