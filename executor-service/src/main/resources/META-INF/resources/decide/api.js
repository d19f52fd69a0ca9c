// HTTP from the decision page to executor-service, its own origin. The sign-in is the server's session cookie: this
// page holds no bearer token and keeps nothing in sessionStorage or localStorage. Every request says it comes from
// script (X-Requested-With), so an ended session answers 401 or 499 instead of redirecting to the identity provider;
// every POST and PUT carries the session's CSRF token and a JSON body.

let session = null;
let onSessionEnded = () => {};
// Aborted when the session ends: its requests stop, and every timer registered on its signal (card polls, countdowns,
// the inbox count) stops with it.
const sessionController = new AbortController();

/** A refusal from executor-service (problem+json), or a network failure (status 0). */
export class Problem extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.title)) || `HTTP ${status}`);
    this.status = status;
    this.code = (body && body.code) || (status === 0 ? 'network' : 'http_' + status);
    this.detail = body && body.detail;
    this.action = body && body.action;
    this.violations = (body && Array.isArray(body.violations)) ? body.violations : [];
  }
}

/** What the person should do next, for every refusal they can meet. */
export function nextStep(problem) {
  switch (problem.code) {
    case 'network': return 'The service did not answer. Check that it is running, then try again.';
    case 'session_ended':
    case 'unauthenticated': return 'Your session ended: sign in again.';
    case 'forbidden': return 'The decision rule does not let you do this: a change to someone else\'s row needs its owner or an approver who did not ask for it.';
    case 'approver_not_allowed': return 'Another approver must confirm this one: ask a colleague with the approver role.';
    case 'action_not_found': return 'No action you may see has this id (one is shown to who asked for it, the owner of what it changes, approvers and administrators): check the link, or open the pending decisions.';
    case 'invalid_state_transition': return 'Someone or something decided first; the card now shows what happened.';
    case 'params_hash_required': return 'This card did not say what you were shown, so nothing changed. Reload the page and confirm again.';
    case 'params_mismatch': return 'What you were shown is not what is stored: nothing ran. Reload and review it again.';
    case 'target_changed': return 'The row changed after the proposal was made, so nothing was written. Ask the agent for a fresh proposal.';
    case 'target_not_found': return 'The row the action changes is gone; nothing was written.';
    case 'undo_window_closed': return 'The undo window has closed; change it back with a new request to the agent.';
    case 'not_undoable': return 'This kind of action cannot be undone here; ask the agent for a new change instead.';
    case 'validation_failed': return 'Correct the input and try again.';
    case 'upstream_unavailable': return 'A service is unavailable right now: try again in a moment.';
    case 'agent_writes_disabled': return 'An administrator switched agent writes off for your tenant (Trust and policy).';
    case 'external_sends_disabled': return 'An administrator switched external sends off for your tenant (Trust and policy).';
    case 'plan_changed': return 'Your plans are shown as they are now: read the draft again, then commit if you still want it.';
    case 'another_plan_active': return 'Your plans are shown as they are now: commit again if you still want this one.';
    case 'same_turn_confirm': return 'Confirm it yourself from this card.';
    case 'internal_error': return 'Something failed on the server; try again, and quote the incident id if it persists.';
    default: return 'Try again; if it keeps failing, reload the page.';
  }
}

/** One sentence for a refusal: what happened, then what to do next. */
export function explain(problem) {
  const what = problem.detail || problem.message;
  return `${what}${brokenFields(problem)} ${nextStep(problem)}`;
}

/** A refused body's broken fields as the server named them (validation_failed), e.g. " highApprovals: must be ...". */
function brokenFields(problem) {
  if (problem.code !== 'validation_failed' || !Array.isArray(problem.violations)) {
    return '';
  }
  return ' ' + problem.violations.map(v => `${v.field}: ${v.message}.`).join(' ');
}

/** Called once, when the first request finds the session ended (401 or 499). */
export function whenSessionEnded(callback) {
  onSessionEnded = callback;
}

export function sessionSignal() {
  return sessionController.signal;
}

/** True for the refusal a request gets once the session ended; the page said so once already. */
export function isSessionEnded(problem) {
  return problem instanceof Problem && problem.code === 'session_ended';
}

function sessionEndedProblem() {
  return new Problem(401, { code: 'session_ended', detail: 'Your session ended.' });
}

function endSession() {
  if (!sessionController.signal.aborted) {
    sessionController.abort();
    onSessionEnded();
  }
}

/**
 * One request to this origin. GET sends no body; POST and PUT send {@code body} (at least {}) as JSON with the CSRF
 * token. Redirects are not followed: an API answer that redirects means the session is gone.
 */
async function call(path, { method = 'GET', body } = {}) {
  const signal = sessionController.signal;
  if (signal.aborted) {
    throw sessionEndedProblem();
  }
  const headers = { 'X-Requested-With': 'JavaScript', Accept: 'application/json' };
  const init = { method, headers, credentials: 'same-origin', redirect: 'manual', signal };
  if (method !== 'GET') {
    headers['Content-Type'] = 'application/json';
    headers['X-CSRF-TOKEN'] = session ? session.csrfToken : '';
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw signal.aborted ? sessionEndedProblem() : new Problem(0, null);
  }
  if (response.status === 401 || response.status === 499 || response.type === 'opaqueredirect') {
    endSession();
    throw sessionEndedProblem();
  }
  if (signal.aborted) {
    throw sessionEndedProblem();
  }
  const answer = await response.json().catch(() => null);
  if (!response.ok) {
    throw new Problem(response.status, answer);
  }
  return { status: response.status, body: answer };
}

/**
 * {@code GET /api/session}: who is signed in, the CSRF token for this session, where to sign out and where the chat
 * is. Kept in this module's memory only.
 */
export async function loadSession() {
  session = (await call('/api/session')).body;
  return session;
}

export function currentSession() {
  return session;
}

export function inGroup(group) {
  return Boolean(session && Array.isArray(session.groups) && session.groups.includes(group));
}

export async function get(path) {
  return (await call(path)).body;
}

/** A POST; answers the HTTP status as well (202 on confirm: an approval recorded, or an outcome still unknown). */
export async function post(path, body = {}) {
  return call(path, { method: 'POST', body });
}

/** A PUT; answers the HTTP status as well (202 on a policy change that waits for a second administrator). */
export async function put(path, body) {
  return call(path, { method: 'PUT', body });
}
