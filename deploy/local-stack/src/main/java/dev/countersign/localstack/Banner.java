package dev.countersign.localstack;

import dev.countersign.contracts.Audiences;

/** What the run command prints once everything is up. */
final class Banner {

    private Banner() {
    }

    static String text(LocalStack stack, StackSettings settings) {
        String agentToken = stack.tokens().mint("acme", "alice", Audiences.AGENT, DevTokenServer.LIFETIME);
        String executorToken = stack.tokens().mint("acme", "alice", Audiences.EXECUTOR, DevTokenServer.LIFETIME);
        return """

                Countersign is running.
                  chat              %s/   (agent-service: sign in as a demo user, ask, see the cards)
                  decision page     %s/decide/   (executor-service: confirm, cancel, undo; %s)
                  executor API      %s
                  model             %s
                  SMTP server       localhost:%d   (e-mails the executor sends are printed here)
                  ticket system     %s
                  data directory    %s   (PostgreSQL, Kafka, dev keys, logs/)

                Bearer tokens (dev only; valid 1 h), one per service. Demo users: acme/alice, acme/bob,
                globex/carol:
                  curl -s -X POST %s -d '{"tenant":"acme","user":"alice"}'
                Tokens for acme/alice:
                  export AGENT_TOKEN=%s
                  export EXECUTOR_TOKEN=%s

                Walkthrough: see README.md ("Try it"). Ctrl-C stops everything; data survives a restart.
                """.formatted(stack.agentUrl(), stack.executorUrl(), stack.keycloak() == null
                ? "off: no Keycloak (KEYCLOAK_PORT=0)"
                : "sign in at Keycloak " + stack.keycloak().issuer() + " as alice, bob, carol or dave,"
                        + " password <user>-dev-only",
                String.join(" ", stack.executorUrls()),
                stack.model() == null ? settings.openAiBaseUrl() : stack.model().baseUrl() + " (offline demo model)",
                stack.smtp().port(), stack.tickets().url(),
                settings.dataDirectory(), stack.tokenUrl(), agentToken, executorToken);
    }
}
