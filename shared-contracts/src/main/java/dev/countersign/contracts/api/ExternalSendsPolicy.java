package dev.countersign.contracts.api;

import jakarta.validation.constraints.NotNull;

/**
 * The tenant's kill switch for agent-initiated external sends (e-mail to a requestor, tickets in another system): when
 * off, such proposals are rejected and staged ones are refused at execution, before any call leaves.
 */
public record ExternalSendsPolicy(@NotNull(message = "must be true or false") Boolean enabled) {
}
