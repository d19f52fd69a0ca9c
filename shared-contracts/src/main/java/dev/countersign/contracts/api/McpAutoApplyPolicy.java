package dev.countersign.contracts.api;

import java.util.List;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import dev.countersign.contracts.catalogue.KnownKind;

/**
 * The action kinds whose proposals through an MCP client (docs/mcp.md) may apply on arrival under the tier rules and
 * the auto-apply budget, as the built-in chat's clean proposals may; every other kind's wait for a person. None by
 * default: Countersign cannot see what entered an external agent's context, so opting a kind in is the tenant's
 * decision, and a second administrator confirms it (a loosening change). A kind the catalogue does not declare is
 * refused.
 */
public record McpAutoApplyPolicy(
        @NotNull(message = "must be a list of action kinds (empty for none)") @Size(max = 64, message = "at most 64 kinds") List<@NotBlank(message = "must be an action kind") @KnownKind String> kinds) {

    /** The same kinds sorted and without repeats: how it is stored and compared. */
    public McpAutoApplyPolicy normalised() {
        return new McpAutoApplyPolicy(kinds.stream().distinct().sorted().toList());
    }
}
