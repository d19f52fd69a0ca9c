package dev.countersign.localstack;

/** What the run command prints once everything is up. */
final class Banner {

    private Banner() {
    }

    static String text(LocalStack stack, StackSettings settings) {
        String alice = stack.tokens().mint("acme", "alice", DevTokenServer.LIFETIME);
        return """

                Countersign is running.
                  agent-service     %s   (chat, wallets)
                  executor-service  %s   (actions: view, confirm)
                  model             %s
                  data directory    %s   (PostgreSQL, Kafka, dev keys, logs/)

                Bearer tokens (dev only; valid 12 h). Demo users: acme/alice, acme/bob, globex/carol.
                  curl -s -X POST %s -d '{"tenant":"acme","user":"alice"}'
                A token for acme/alice:
                  export TOKEN=%s

                Walkthrough: see README.md ("Try it"). Ctrl-C stops everything; data survives a restart.
                """.formatted(stack.agentUrl(), stack.executorUrl(),
                stack.model() == null ? settings.openAiBaseUrl() : stack.model().baseUrl() + " (offline demo model)",
                settings.dataDirectory(), stack.tokenUrl(), alice);
    }
}
