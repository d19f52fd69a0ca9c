package dev.countersign.executor.session;

import java.util.Optional;

import io.smallrye.config.ConfigMapping;

/** The decision page's browser session (application.properties: {@code countersign.session.*}). */
@ConfigMapping(prefix = "countersign.session")
public interface SessionConfig {

    /** The key of the CSRF tokens' HMAC: at least 32 characters, the same on every instance. */
    String csrfSecret();

    /** Where the chat lives, for the page's "Back to the conversation" link; none: no link. */
    Optional<String> chatUrl();
}
