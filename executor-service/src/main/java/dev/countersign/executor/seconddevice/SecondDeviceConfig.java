package dev.countersign.executor.seconddevice;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Second-device approvals (OpenID CIBA, docs/approvals.md): the executor asks the identity provider to have a person
 * approve an action on a device of theirs.
 */
@ConfigMapping(prefix = "countersign.second-device")
public interface SecondDeviceConfig {

    /**
     * Whether the people who chose it are asked on their second device to approve HIGH actions they may decide; needs
     * {@link #clientSecret()} and an identity provider with CIBA (poll mode).
     */
    @WithDefault("false")
    boolean enabled();

    /** The executor's CIBA client at the identity provider. */
    @WithDefault("countersign-second-device")
    String clientId();

    /**
     * The audience of an approval's access token (what the CIBA client's tokens name), which no endpoint accepts as a
     * bearer token; the OIDC tenant {@code second-device} verifies it.
     */
    @WithDefault("countersign-second-device-approval")
    String audience();

    /** That client's secret (client_secret_basic). */
    Optional<String> clientSecret();

    /** The provider's backchannel authentication endpoint ({@code backchannel_authentication_endpoint}). */
    Optional<URI> backchannelEndpoint();

    /** The provider's token endpoint, polled with the CIBA grant. */
    Optional<URI> tokenEndpoint();

    /**
     * How long a request may wait for the person ({@code requested_expiry}); never longer than the action's own window
     * has left.
     */
    @WithDefault("PT2M")
    @DurationMin(seconds = 5)
    @DurationMax(hours = 1)
    Duration requestExpiry();

    /** How long a call to the provider may take before it counts as failed (tried again at the next poll). */
    @WithDefault("PT10S")
    Duration timeout();

    /** How often the poller looks for requests due for a poll. */
    @WithDefault("PT1S")
    Duration pollInterval();

    /** How long a poll's claim keeps other instances off a request (a poller that died is followed after it). */
    @WithDefault("PT30S")
    Duration lease();

    /** How many requests one poll run takes. */
    @WithDefault("50")
    int batch();
}
