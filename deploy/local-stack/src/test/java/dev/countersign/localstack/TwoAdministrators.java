package dev.countersign.localstack;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sets a tenant policy as two of its administrators would: the proposer's change applies at once (200) if it keeps or
 * tightens protection; one that weakens it (202, staged) is confirmed by the second administrator
 * (docs/security/authorization.md, two persons for loosening). For tests whose subject is not that rule.
 */
final class TwoAdministrators {

    private TwoAdministrators() {
    }

    static void set(String executorUrl, String proposer, String confirmer, String setting, Object body)
            throws Exception {
        Http.Answer answer = Http.put(executorUrl + "/api/actions/policy/" + setting, proposer, body);
        if (answer.status() == 202) {
            Http.Answer confirmed = Http.post(executorUrl + "/api/actions/policy/changes/"
                    + answer.body().get("id").asText() + "/confirm", confirmer, java.util.Map.of());
            assertThat(confirmed.status()).as(confirmed.text()).isEqualTo(200);
        } else {
            assertThat(answer.status()).as(answer.text()).isEqualTo(200);
        }
    }
}
