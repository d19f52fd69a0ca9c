package dev.countersign.agent.turn;

import org.jboss.logging.MDC;

import dev.countersign.agent.conversation.ConversationKey;

/**
 * The tenant and user of the turn being run, in the logging MDC while it runs (JSON logs show them next to the trace
 * and span ids), so a line about a turn can be found by tenant without parsing its text. Never the message, never a
 * token.
 * <p>
 * Limit: the MDC is the calling thread's (a turn runs blocking on one worker thread); a model call made on the turn's
 * call pool logs without these fields.
 */
final class TurnLogFields {

    static final String TENANT_ID = "tenantId";
    static final String USER_ID = "userId";

    private TurnLogFields() {
    }

    static void put(ConversationKey conversation) {
        MDC.put(TENANT_ID, conversation.tenantId());
        MDC.put(USER_ID, conversation.userId());
    }

    static void remove() {
        MDC.remove(TENANT_ID);
        MDC.remove(USER_ID);
    }
}
