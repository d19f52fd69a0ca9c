// HTTP to agent-service. This page never calls the service that writes and holds no token for it: people decide on the
// decision page (/decide/, its own origin), which the chat's cards link to. Two ways to be signed in:
// - the session (settings.session, wherever an identity provider serves browsers): the server signed the person in
//   before serving this page (OpenID Connect, a session cookie); the page holds no token, only the session's CSRF
//   token (GET /api/session, in memory), which every POST carries with a JSON body;
// - a bearer token (tests and API-only stacks): the local stack's dev-only demo sign-in, or one pasted, kept in
//   sessionStorage for this tab.

const SESSION_KEY = 'countersign.session';

let settings = { executorUrl: '', devTokenUrl: null, session: false };
// The server's session (session mode): who is signed in, its CSRF token, where to sign out.
let serverSession = null;
let session = null;
let onSignedOut = () => {};
// One controller per signed-in session: signing out (or a 401) aborts its requests and stops every timer registered
// on its signal (card polls and countdowns), so nothing of the old session keeps running or reports errors.
let sessionController = new AbortController();

/** A refusal from agent-service or the dev token endpoint (problem+json), or a network failure (status 0). */
export class Problem extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.title)) || `HTTP ${status}`);
    this.status = status;
    this.code = (body && body.code) || (status === 0 ? 'network' : 'http_' + status);
    this.detail = body && body.detail;
    this.action = body && body.action;
  }
}

/** What the person should do next, for every refusal they can meet on this page (decisions have their own page). */
export function nextStep(problem) {
  switch (problem.code) {
    case 'network': return 'The service did not answer. Check that it is running, then try again.';
    case 'unauthenticated': return 'Your sign-in expired or was not accepted: sign in again.';
    case 'forbidden': return 'Your account is not allowed to do this: ask an administrator of your tenant.';
    case 'not_found': return 'Nothing with this id is yours; start a new conversation.';
    case 'validation_failed': return 'Correct the input and try again.';
    case 'upstream_unavailable': return 'The model or a service is unavailable right now: try again in a moment.';
    case 'agent_writes_disabled': return 'An administrator switched agent writes off for your tenant (on the decision page, under Trust and policy).';
    case 'internal_error': return 'Something failed on the server; try again, and quote the incident id if it persists.';
    default: return 'Try again; if it keeps failing, reload the page.';
  }
}

/** One sentence for a refusal: what happened, then what to do next. */
export function explain(problem) {
  const what = problem.detail || problem.message;
  return `${what} ${nextStep(problem)}`;
}

export async function loadSettings() {
  const response = await fetch('/api/ui/config', { headers: { Accept: 'application/json' } });
  if (!response.ok) {
    throw new Problem(response.status, null);
  }
  settings = await response.json();
  return settings;
}

export function uiSettings() {
  return settings;
}

/** Session mode: asks the server who is signed in (the page was served only after sign-in). */
export async function loadServerSession() {
  const response = await call(null, '/api/session');
  serverSession = (await json(response)).body;
  return serverSession;
}

export function currentSession() {
  if (settings.session) {
    return serverSession && !sessionController.signal.aborted ? serverSession : null;
  }
  if (session === null) {
    try {
      const stored = JSON.parse(sessionStorage.getItem(SESSION_KEY));
      // Only the fields this page uses: a session stored by an older version of the page held more tokens.
      session = stored && stored.agentToken ? { agentToken: stored.agentToken, tenant: stored.tenant, user: stored.user,
        expiresAt: stored.expiresAt } : null;
      if (session) {
        sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
      } else {
        sessionStorage.removeItem(SESSION_KEY);
      }
    } catch (e) {
      session = null;
    }
  }
  return session;
}

/** Called once per session, on the first 401 of that session (an expired or refused token). */
export function whenSignedOut(callback) {
  onSignedOut = callback;
}

/** Aborted when this session ends: requests stop and whatever listens (timers) stops with them. */
export function sessionSignal() {
  return sessionController.signal;
}

/** True for the refusal a request of an ended session gets; it was already reported once, at sign-out. */
export function isSignedOut(problem) {
  return problem instanceof Problem && (problem.code === 'signed_out' || problem.status === 401);
}

/** Keeps the agent's bearer token for this tab only (sessionStorage): gone when the tab closes. */
export function signIn(agentToken) {
  const claims = decodeClaims(agentToken) || {};
  session = {
    agentToken: agentToken.trim(),
    tenant: claims.tenant || '?',
    user: claims.sub || '?',
    expiresAt: claims.exp ? claims.exp * 1000 : null,
  };
  if (sessionController.signal.aborted) {
    sessionController = new AbortController();
  }
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  return session;
}

export function signOut() {
  session = null;
  serverSession = null;
  sessionStorage.removeItem(SESSION_KEY);
  sessionController.abort();
}

export async function devSignIn(tenant, user) {
  let response;
  try {
    response = await fetch(settings.devTokenUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ tenant, user }),
    });
  } catch (e) {
    throw new Problem(0, { detail: 'The dev token endpoint did not answer.' });
  }
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    throw new Problem(response.status, body);
  }
  // Only the agent's token: the decision page signs people in on its own origin.
  return signIn(body.agentToken);
}

function decodeClaims(jwt) {
  try {
    const part = jwt.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(part.padEnd(part.length + (4 - part.length % 4) % 4, '=')));
  } catch (e) {
    return null;
  }
}

function signedOutProblem() {
  return new Problem(401, { code: 'signed_out', detail: 'You are signed out.' });
}

function tokenOf(name) {
  if (settings.session) {
    if (sessionController.signal.aborted) {
      throw signedOutProblem();
    }
    return null;
  }
  const current = currentSession();
  if (!current || sessionController.signal.aborted) {
    throw signedOutProblem();
  }
  return current[name];
}

async function call(token, path, { method = 'GET', body, accept = 'application/json' } = {}) {
  const signal = sessionController.signal;
  const headers = { Accept: accept };
  const init = { method, headers, signal, credentials: 'same-origin' };
  if (settings.session) {
    // An ended session answers 401 or 499 to script instead of redirecting to the identity provider.
    headers['X-Requested-With'] = 'JavaScript';
    init.redirect = 'manual';
    if (method !== 'GET') {
      headers['X-CSRF-TOKEN'] = serverSession ? serverSession.csrfToken : '';
      body = body === undefined ? {} : body;
    }
  } else {
    headers.Authorization = `Bearer ${token}`;
  }
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    // Same origin only: agent-service's own API.
    response = await fetch(path, init);
  } catch (e) {
    throw signal.aborted ? signedOutProblem() : new Problem(0, null);
  }
  if (response.status === 401 || response.status === 499 || response.type === 'opaqueredirect') {
    const problem = new Problem(401, await response.json().catch(() => ({ code: 'session_ended',
      detail: 'Your session ended.' })));
    // Many requests of one session can fail at once (card polls, wallets, a turn): only the first signs out.
    if (!signal.aborted) {
      signOut();
      onSignedOut(problem);
    }
    throw problem;
  }
  if (signal.aborted) {
    throw signedOutProblem();
  }
  return response;
}

async function json(response) {
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    throw new Problem(response.status, body);
  }
  return { status: response.status, body };
}

export async function agent(path, options) {
  return (await json(await call(tokenOf('agentToken'), path, options))).body;
}

/**
 * Where a person reviews and decides an action: the decision page, on its own origin (a link, not a fetch).
 * With {@code actionId} null, its list of pending decisions.
 */
export function decisionPageUrl(actionId) {
  const query = actionId ? `action=${encodeURIComponent(actionId)}` : 'view=inbox';
  return `${settings.executorUrl}/decide/?${query}`;
}

/**
 * Sends a message and reads the server-sent events as they arrive: onEvent(name, data) for tool, proposal, reply,
 * problem. EventSource cannot POST or send a bearer token, hence fetch and a small reader.
 */
export async function streamMessage(conversationId, text, mode, onEvent) {
  const response = await call(tokenOf('agentToken'),
    `/api/conversations/${encodeURIComponent(conversationId)}/messages`,
    { method: 'POST', body: { text, mode }, accept: 'text/event-stream' });
  if (!response.ok) {
    throw new Problem(response.status, await response.json().catch(() => null));
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch (e) {
      throw sessionController.signal.aborted ? signedOutProblem() : new Problem(0, null);
    }
    const { value, done } = chunk;
    if (done) {
      break;
    }
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, '\n');
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) {
          name = line.slice(6).trim();
        } else if (line.startsWith('data:')) {
          data.push(line.slice(5).replace(/^ /, ''));
        }
      }
      if (data.length > 0) {
        onEvent(name, JSON.parse(data.join('\n')));
      }
    }
  }
}
