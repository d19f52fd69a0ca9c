package dev.countersign.contracts;

/**
 * Stable error codes carried in the {@code code} member of every problem+json answer and every rejection event. Clients
 * branch on these, never on the human-readable detail.
 */
public enum ErrorCode {

    /** No token, or a token that does not verify. */
    UNAUTHENTICATED("unauthenticated", 401),
    /** Authenticated, but not allowed to do this. */
    FORBIDDEN("forbidden", 403),
    /**
     * A change sent with a browser session (no bearer token) without this session's CSRF token, from another origin, or
     * not as JSON: nothing changed. Reload the page and try again.
     */
    CSRF_REFUSED("csrf_refused", 403),
    /** Unknown id, another tenant's action or a wrong confirm token: deliberately indistinguishable. */
    ACTION_NOT_FOUND("action_not_found", 404),
    /** Unknown wallet or another tenant's wallet. */
    NOT_FOUND("not_found", 404),
    /** The action is no longer in a state that allows the request; the body carries its current status. */
    INVALID_STATE_TRANSITION("invalid_state_transition", 409),
    /**
     * Committing a training plan met another plan of the same user made active at the same moment around the
     * application (the database's one-active-plan-per-user index); nothing changed.
     */
    ANOTHER_PLAN_ACTIVE("another_plan_active", 409),
    /**
     * The training plan, or the plan a commit would archive, is not the one the person read (revised, or another plan
     * became active since); nothing changed.
     */
    PLAN_CHANGED("plan_changed", 409),
    /** The stored parameters no longer hash to the hash the person approved. */
    PARAMS_MISMATCH("params_mismatch", 409),
    /**
     * A confirm that does not name the parameters hash the person was shown; nothing changed and the token still works.
     */
    PARAMS_HASH_REQUIRED("params_hash_required", 400),
    /** The request or the proposal broke a rule of the action catalogue. */
    VALIDATION_FAILED("validation_failed", 400),
    /** The action id is already taken by a different proposal. */
    DUPLICATE_ACTION("duplicate_action", 409),
    /** A decision relayed from the chat in the very turn that proposed the action. */
    SAME_TURN_CONFIRM("same_turn_confirm", 409),
    /** A batch confirm could not run as a whole; nothing of it ran. {@code violations} names each action's reason. */
    BATCH_REFUSED("batch_refused", 409),
    /** An administrator has switched agent writes off for the tenant; the proposal was not staged. */
    AGENT_WRITES_DISABLED("agent_writes_disabled", 409),
    /**
     * The tenant's policy does not let this user approve this action (e.g. the requester of a HIGH action) or confirm
     * these imported rows (their importer, for rows at or above the high-impact threshold).
     */
    APPROVER_NOT_ALLOWED("approver_not_allowed", 403),
    /** The wallet is another user's: rows are imported only into a wallet of the importer's own. */
    WALLET_NOT_OWNED("wallet_not_owned", 403),
    /** The row an action targets does not exist (any more) in the action's tenant. */
    TARGET_NOT_FOUND("target_not_found", 409),
    /** The row the action changes moved on since it was staged: what the person approved is no longer what it is. */
    TARGET_CHANGED("target_changed", 409),
    /** Money would move between wallets of different currencies: refused, nothing converted. */
    CURRENCY_MISMATCH("currency_mismatch", 409),
    /** The HTTP method is not supported on this path. */
    METHOD_NOT_ALLOWED("method_not_allowed", 405),
    /** The request cannot be served in the form asked for (media type, size). */
    UNSUPPORTED_REQUEST("unsupported_request", 415),
    /**
     * The model endpoint or the broker did not answer in time, or calls to the model are paused after it kept failing
     * (sent with {@code Retry-After} then).
     */
    UPSTREAM_UNAVAILABLE("upstream_unavailable", 503),
    /** The caller asked more often than its limit allows (sent with {@code Retry-After}); nothing was done. */
    RATE_LIMITED("rate_limited", 429),
    /**
     * PostgreSQL cannot be reached (down, restarting, the network to it broken): the request was not carried out,
     * unless the connection broke as it committed; retrying is safe either way (sent with {@code Retry-After}).
     */
    DATABASE_UNAVAILABLE("database_unavailable", 503),
    /**
     * Plan runs are off: the plan role can execute a function it must not, or has no temp_file_limit (plan-role.sql).
     */
    PLAN_ROLE_UNFENCED("plan_role_unfenced", 503),
    /** The catalogue lists the kind, but this executor cannot carry it out (yet): rejected at staging. */
    KIND_NOT_SUPPORTED("kind_not_supported", 409),
    /** This kind of action cannot be undone (only ledger creates, edits, deletes and wallet renames can). */
    NOT_UNDOABLE("not_undoable", 409),
    /** The action ran longer ago than the undo window allows. */
    UNDO_WINDOW_CLOSED("undo_window_closed", 409),
    /** The tenant's administrator has switched off agent-initiated external sends (e-mail, tickets). */
    EXTERNAL_SENDS_DISABLED("external_sends_disabled", 409),
    /** A person checked the vendor and found an external action whose outcome was unknown not carried out. */
    NOT_CARRIED_OUT("not_carried_out", 409),
    /** The external vendor (ticket system, mail server) refused the request; nothing was carried out. */
    VENDOR_REFUSED("vendor_refused", 409),
    /**
     * An external call may or may not have reached the vendor (the executor stopped between the call and recording it):
     * the action waits for a person to check, and is never retried blindly.
     */
    OUTCOME_UNKNOWN("outcome_unknown", 409),
    /**
     * A change that weakens the tenant's protection waits for a second administrator: its proposer cannot confirm it
     * (unless an operator's break-glass exempted it).
     */
    SECOND_ADMIN_REQUIRED("second_admin_required", 403),
    /** The policy setting changed since this change was proposed against it: propose it again. */
    POLICY_CHANGED("policy_changed", 409),
    /** Anything unexpected; details are in the server log under the problem's instance id. */
    INTERNAL("internal_error", 500);

    private final String code;
    private final int httpStatus;

    ErrorCode(String code, int httpStatus) {
        this.code = code;
        this.httpStatus = httpStatus;
    }

    /** The code named {@code code}, if there is one. */
    public static java.util.Optional<ErrorCode> find(String code) {
        return java.util.Arrays.stream(values()).filter(value -> value.code.equals(code)).findFirst();
    }

    public String code() {
        return code;
    }

    public int httpStatus() {
        return httpStatus;
    }
}
