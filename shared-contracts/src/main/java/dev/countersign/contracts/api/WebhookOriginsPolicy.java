package dev.countersign.contracts.api;

import java.util.List;
import java.util.Locale;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * The origins (scheme, host and port; no path) a webhook notification of the tenant may go to: the egress allow-list of
 * its notifications (docs/approvals.md). A person's webhook whose URL has another origin is refused when due, and the
 * refusal recorded. None by default; adding an origin is a loosening change that a second administrator confirms.
 * <p>
 * Limit: an origin admits every path on it (a chat service's whole webhook host, for instance); whoever may name a
 * webhook URL there (any member, for their own notifications) reaches whatever that host serves.
 */
public record WebhookOriginsPolicy(
        @NotNull(message = "must be a list of origins (empty for none)") @Size(max = 32, message = "at most 32 origins") List<@NotNull(message = "must be an origin") @Pattern(regexp = ORIGIN, flags = Pattern.Flag.CASE_INSENSITIVE, message = "must be an origin such as https://hooks.example.com or https://hooks.example.com:8443, without a path") String> origins) {

    /** http or https, a host name or IPv4 address, an optional port; nothing else. */
    public static final String ORIGIN = "https?://[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:[0-9]{1,5})?";

    /** The same origins in lower case, sorted and without repeats: how they are stored and compared. */
    public WebhookOriginsPolicy normalised() {
        return new WebhookOriginsPolicy(
                origins.stream().map(origin -> origin.toLowerCase(Locale.ROOT)).distinct().sorted().toList());
    }
}
