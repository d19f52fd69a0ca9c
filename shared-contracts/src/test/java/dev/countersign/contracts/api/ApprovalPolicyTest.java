package dev.countersign.contracts.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.countersign.contracts.json.Json;

class ApprovalPolicyTest {

    @Test
    void wireFormHasOnlyTheTwoSettings() throws Exception {
        var json = Json.mapper().readTree(Json.write(ApprovalPolicy.DEFAULT));

        assertThat(json.properties()).extracting(java.util.Map.Entry::getKey)
                .containsExactlyInAnyOrder("highApprovals", "highNeedsOtherApprover");
    }
}
