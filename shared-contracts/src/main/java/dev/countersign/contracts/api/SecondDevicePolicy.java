package dev.countersign.contracts.api;

import java.util.List;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import dev.countersign.contracts.catalogue.KnownKind;

/**
 * The action kinds whose proposals below HIGH also go to people's second devices (OpenID CIBA, docs/approvals.md), as
 * every HIGH action does, to the people who may decide them and chose to be asked there. None by default. Asking more
 * people weakens no protection, nor does asking fewer (the decision rule and the approval policy decide what counts),
 * so a change applies at once. A kind the catalogue does not declare is refused.
 */
public record SecondDevicePolicy(
        @NotNull(message = "must be a list of action kinds (empty for none)") @Size(max = 64, message = "at most 64 kinds") List<@NotBlank(message = "must be an action kind") @KnownKind String> kinds) {

    /** The same kinds sorted and without repeats: how it is stored and compared. */
    public SecondDevicePolicy normalised() {
        return new SecondDevicePolicy(kinds.stream().distinct().sorted().toList());
    }
}
