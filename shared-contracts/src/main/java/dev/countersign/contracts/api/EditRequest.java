package dev.countersign.contracts.api;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code POST /api/actions/{id}/edit}: change parameters of a proposed action before approving it (docs/approvals.md).
 *
 * @param paramsHash
 *            the hash of the action as the person was shown it (its view's {@code paramsHash}): an action that changed
 *            since is not edited
 * @param params
 *            the parameters to change and their new values; only those its kind declares a person may change
 *            ({@code personEditable}); {@code null} leaves out an optional one
 */
public record EditRequest(String paramsHash, JsonNode params) {
}
