package dev.countersign.executor.decision;

/** What entitles a decision: a signed-in person, or the action's one-time confirm token. */
public sealed interface DecisionAuthority {

    /**
     * A person verified by this service over HTTP (a bearer token for the executor, or the executor's own browser
     * session); what they may decide is the decision rule's answer for the request's {@code decider}. The agent never
     * holds such a credential: its tokens are for another audience and its pages live on another origin.
     */
    record Person() implements DecisionAuthority {
    }

    /**
     * The action's confirm token, as the decisions topic carries it. The executor mints a person's action token itself
     * and hands it only to an approver who asks for it ({@code reissue-token}); an integration proposing as a service
     * principal sends its own token's hash.
     */
    record Token(String rawToken) implements DecisionAuthority {

        @Override
        public String toString() {
            return "Token[<redacted>]";
        }
    }
}
