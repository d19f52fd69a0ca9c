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
                  approval device   %s
                  executor API      %s
                  model             %s
                  SMTP server       localhost:%d   (e-mails the executor sends are printed here)
                  ticket system     %s
                  data directory    %s   (PostgreSQL, Kafka, dev keys, logs/)

                Bearer tokens for the API (dev only; valid %s), one per service. Demo users: acme/alice,
                acme/bob, acme/dave, acme/erin (with Keycloak), globex/carol:
                  curl -s -X POST %s -d '{"tenant":"acme","user":"alice"}'
                Tokens for acme/alice:
                  export AGENT_TOKEN=%s
                  export EXECUTOR_TOKEN=%s

                Walkthrough: see README.md ("Try it"). Ctrl-C stops everything; data survives a restart.
                """.formatted(keycloak
                ? "Keycloak " + stack.keycloak().issuer() + ": alice, bob, dave, erin (acme), carol (globex);"
                        + " DEV-ONLY password <user>-dev-only"
                : "no identity provider (KEYCLOAK_PORT=0): the chat's DEV-ONLY demo sign-in, no password",
                stack.agentUrl(), stack.executorUrl(), keycloak ? "" : "; off without Keycloak",
                settings.secondDevices()
                        ? stack.deviceUrl() + "/   (second-device approvals: sign in as the approver, e.g. erin)"
                        : "off (needs Keycloak and APPROVAL_DEVICE=true)",
                String.join(" ", stack.executorUrls()),
                stack.model() == null ? settings.openAiBaseUrl() : stack.model().baseUrl() + " (offline demo model)",
                stack.smtp().port(), stack.tickets().url(),
                settings.dataDirectory(), keycloak ? "5 min, from Keycloak" : "1 h", stack.tokenUrl(), agentToken,
                executorToken);
    }

    /** Under {@code --infra}: what runs, and how to start the services in dev mode against it. */
    static String infraText(LocalStack stack, StackSettings settings) {
        boolean keycloak = stack.keycloak() != null;
        return """

                Countersign's infrastructure is running (the services are not: start them in dev mode).
                  sign-in           %s
                  model             %s
                  SMTP server       localhost:%d
                  ticket system     %s
                  dev tokens        curl -s -X POST %s -d '{"tenant":"acme","user":"alice"}'
                  data directory    %s

                Their settings are in executor-service/.env and agent-service/.env (read by dev mode). In two more
                terminals, from the repository root:
                  ./mvnw -pl executor-service quarkus:dev            (%s, Dev UI %s/q/dev-ui)
                  ./mvnw -pl agent-service quarkus:dev -Ddebug=5006  (%s, Dev UI %s/q/dev-ui)
                The demo data is written once the executor has migrated the database. See docs/development.md.
                Ctrl-C stops the infrastructure; data survives a restart.
                """.formatted(keycloak
                ? "Keycloak " + stack.keycloak().issuer() + ": alice, bob, dave, erin (acme), carol (globex);"
                        + " DEV-ONLY password <user>-dev-only"
                : "no identity provider (KEYCLOAK_PORT=0): bearer tokens from the dev token endpoint",
                stack.model() == null ? settings.openAiBaseUrl() : stack.model().baseUrl() + " (offline demo model)",
                stack.smtp().port(), stack.tickets().url(), stack.tokenUrl(), settings.dataDirectory(),
                stack.executorUrl(), stack.executorUrl(), stack.agentUrl(), stack.agentUrl());
    }
}
