package dev.countersign.localstack;

import dev.countersign.contracts.Audiences;

/** What the run command prints once everything is up. */
final class Banner {

    private Banner() {
    }

    static String text(LocalStack stack, StackSettings settings) {
        String agentToken = stack.bearer("acme", "alice", Audiences.AGENT);
        String executorToken = stack.bearer("acme", "alice", Audiences.EXECUTOR);
        boolean keycloak = stack.keycloak() != null;
        return """

                Countersign is running.
                  sign-in           %s
                  chat              %s/   (agent-service: ask, see the cards)
                  decision page     %s/decide/   (executor-service: confirm, cancel, undo, imports, plans%s)
                  executor API      %s
                  model             %s
                  SMTP server       localhost:%d   (e-mails the executor sends are printed here)
                  ticket system     %s
                  data directory    %s   (PostgreSQL, Kafka, dev keys, logs/)

                Bearer tokens for the API (dev only; valid %s), one per service. Demo users: acme/alice,
                acme/bob, acme/dave, globex/carol:
                  curl -s -X POST %s -d '{"tenant":"acme","user":"alice"}'
                Tokens for acme/alice:
                  export AGENT_TOKEN=%s
                  export EXECUTOR_TOKEN=%s

                Walkthrough: see README.md ("Try it"). Ctrl-C stops everything; data survives a restart.
                """.formatted(keycloak
                ? "Keycloak " + stack.keycloak().issuer() + ": alice, bob, dave (acme), carol (globex);"
                        + " DEV-ONLY password <user>-dev-only"
                : "no identity provider (KEYCLOAK_PORT=0): the chat's DEV-ONLY demo sign-in, no password",
                stack.agentUrl(), stack.executorUrl(), keycloak ? "" : "; off without Keycloak",
                String.join(" ", stack.executorUrls()),
                stack.model() == null ? settings.openAiBaseUrl() : stack.model().baseUrl() + " (offline demo model)",
                stack.smtp().port(), stack.tickets().url(),
                settings.dataDirectory(), keycloak ? "5 min, from Keycloak" : "1 h", stack.tokenUrl(), agentToken,
                executorToken);
    }
}
