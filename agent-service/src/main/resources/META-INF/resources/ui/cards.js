// Proposal cards in the chat, read-only: what the agent proposed (the staged summary, the parameters) and its status
// as agent-service reads it. Deciding happens on the decision page, on its own origin; each card links there ("Review
// and decide"). Nothing on this page can confirm, cancel or undo.

import { agent, decisionPageUrl, sessionSignal, isSignedOut, uiSettings } from './api.js';
import { h, announce, uniqueId, formatTime } from '/shared/dom.js';

// While a card is in one of these, the conversation's statuses are asked for again.
const WAITING = new Set(['staging', 'proposed', 'confirmed', 'executing']);
const POLL_MS = 3000;
// Staging a proposal from Kafka may take a moment; after this long without it the card says so.
const STAGING_PATIENCE_MS = 20000;

// Wallet names by id (GET /api/wallets), so a card says "Checking", not only an id. Read once at sign-in.
const walletNames = new Map();

export function setWalletNames(wallets) {
  walletNames.clear();
  for (const wallet of wallets) {
    walletNames.set(wallet.id, wallet.name);
  }
}

// A kind's label, from the catalogue's declarations (GET /api/ui/config): the page names no kind itself.
export function kindLabel(kind) {
  const known = ((uiSettings() || {}).kinds || []).find((entry) => entry.kind === kind);
  return known ? known.label : kind;
}

function valueText(value) {
  if (value === null || value === undefined) {
    return '—';
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

// A parameter that names a wallet (its kind's declaration says so: refersTo) is shown with the wallet's name.
function paramText(kind, name, value) {
  const known = ((uiSettings() || {}).kinds || []).find((entry) => entry.kind === kind);
  const refersTo = known && known.refersTo ? known.refersTo[name] : null;
  if (refersTo === 'wallet' && walletNames.has(value)) {
    return `${walletNames.get(value)} (${value})`;
  }
  return valueText(value);
}

function statusText(line, stale) {
  if (!line) {
    return stale ? 'This proposal has not been staged yet. If the message service was slow it may still arrive '
      + '(the agent keeps sending it for up to two minutes), so please wait rather than asking again; it may also '
      + 'have been refused (for example, agent writes are switched off): check the pending decisions.'
      : 'Being staged…';
  }
  switch (line.status) {
    case 'proposed': return 'Waiting for a decision. Nothing has been written.';
    case 'confirmed':
    case 'executing': return 'Confirmed; running…';
    case 'executed': return 'Executed.';
    case 'failed': return 'Failed: nothing was written.';
    case 'cancelled': return 'Cancelled: nothing was written.';
    case 'expired': return 'Expired: nobody decided in time, nothing was written.';
    case 'undone': return 'Undone.';
    case 'needs_review': return 'Outcome unknown: an administrator must check the vendor and resolve it.';
    case 'superseded': return 'Edited before approval: a person changed it on the decision page, and their edit'
      + ' waits there for its own decision. This one will not run.';
    case 'rejected': return `Rejected by the executor, nothing was staged or written. ${line.summary || ''}`.trim();
    default: return line.status;
  }
}

// ---- one poll per conversation: GET /api/conversations/{id}/actions, every POLL_MS while a card waits ----

let trackedConversation = null;
// actionId -> the card's update(line | null); a line is {actionId, kind, status, summary, headline, proposedAt,
// expiresAt}; status "rejected": the executor refused the proposal at staging (summary says why, in its words).
let tracked = new Map();
let pollTimer = null;
// Bumped with every conversation tracked: an answer for an earlier one is dropped.
let trackGeneration = 0;

/**
 * The cards added from now on belong to {@code conversationId}: the previous conversation's cards stop being updated.
 * Null when no conversation is open (and on sign-out).
 */
export function trackConversation(conversationId) {
  trackGeneration += 1;
  trackedConversation = conversationId;
  tracked = new Map();
  clearTimeout(pollTimer);
  pollTimer = null;
}

// The session whose end clears the poll: one listener per session (sign-out or the first 401), like every timer here.
let listenedSignal = null;

function schedulePoll(delay) {
  const signal = sessionSignal();
  if (pollTimer !== null || trackedConversation === null || signal.aborted) {
    return;
  }
  if (listenedSignal !== signal) {
    listenedSignal = signal;
    signal.addEventListener('abort', () => {
      clearTimeout(pollTimer);
      pollTimer = null;
    }, { once: true });
  }
  pollTimer = setTimeout(poll, delay);
}

async function poll() {
  pollTimer = null;
  const mine = trackGeneration;
  const conversation = trackedConversation;
  const signal = sessionSignal();
  if (conversation === null || signal.aborted) {
    return;
  }
  let lines = null;
  try {
    lines = await agent(`/api/conversations/${encodeURIComponent(conversation)}/actions`);
  } catch (problem) {
    if (isSignedOut(problem) || signal.aborted) {
      return;
    }
    // not_found: the conversation's first turn is not recorded yet. Other failures: asked again at the next poll.
  }
  if (mine !== trackGeneration) {
    return;
  }
  const byId = new Map((lines || []).map((line) => [line.actionId, line]));
  let waiting = false;
  for (const [actionId, update] of tracked) {
    const still = update(lines === null ? undefined : (byId.get(actionId) || null));
    if (still === null) {
      tracked.delete(actionId);
    } else if (still) {
      waiting = true;
    }
  }
  if (waiting) {
    schedulePoll(POLL_MS);
  }
}

/**
 * A read-only card for one proposal: {@code proposal} is what the agent's reply carried (actionId, kind, summary,
 * params). Its status comes from agent-service; deciding is a link to the decision page, opened in this tab.
 */
export function actionCard(proposal) {
  const id = proposal.actionId;
  const titleId = uniqueId('card-title');
  const summaryId = uniqueId('card-summary');
  const started = Date.now();
  let line = null;
  let lastStatus = null;

  // The headline names what it does (the staged summary); the kind is the secondary label.
  const title = h('h3', { id: titleId, class: 'summary', text: proposal.summary || kindLabel(proposal.kind) });
  const kind = h('p', { class: 'kind', id: summaryId, text: kindLabel(proposal.kind) });
  const status = h('p', { class: 'status', 'data-role': 'status' });
  const expiry = h('p', { class: 'expiry', hidden: true });
  const link = h('a', { class: 'decide', href: decisionPageUrl(id), rel: 'noopener noreferrer',
    'aria-describedby': titleId }, 'Review and decide');
  const card = h('article', { class: 'card', 'aria-labelledby': titleId, 'data-action-id': id,
    'data-status': 'staging' },
  h('header', { class: 'card-head' }, title), kind, params(proposal), status, expiry,
  h('p', { class: 'decide-link' }, link));

  function render() {
    const state = line ? line.status : 'staging';
    card.dataset.status = state;
    if (line && line.status !== 'rejected' && (line.headline || line.summary)) {
      title.textContent = line.headline || line.summary;
    }
    const stale = !line && Date.now() - started > STAGING_PATIENCE_MS;
    const text = statusText(line, stale);
    if (status.textContent !== text) {
      status.textContent = text;
    }
    const open = line && line.status === 'proposed';
    expiry.hidden = !(open && line.expiresAt);
    if (open && line.expiresAt) {
      expiry.replaceChildren('Decision window closes at ',
        h('time', { datetime: line.expiresAt }, formatTime(line.expiresAt)), '.');
    }
    link.textContent = !line || open ? 'Review and decide' : 'Details and history';
    // A rejected proposal was never stored: the decision page has nothing to show.
    link.hidden = Boolean(line && line.status === 'rejected');
    if (lastStatus !== null && lastStatus !== state) {
      announce(`${title.textContent}: ${text}`);
    }
    lastStatus = state;
    return !line ? !stale : WAITING.has(state);
  }

  /**
   * undefined: the poll failed (keep what is shown); null: not staged (yet); else the action's line. Answers whether
   * the card still waits, or null once it left the page.
   */
  function update(next) {
    if (!card.isConnected && Date.now() - started > 2000) {
      return null;
    }
    if (next !== undefined) {
      line = next;
    }
    return render();
  }

  render();
  if (!sessionSignal().aborted && trackedConversation !== null) {
    tracked.set(id, update);
    schedulePoll(0);
  }
  return card;
}

/** The proposal's parameters as the agent sent them; the decision page shows the diff against what is stored. */
function params(proposal) {
  if (!proposal.params || typeof proposal.params !== 'object') {
    return null;
  }
  return h('table', { class: 'diff' },
    h('caption', {}, 'What it proposes'),
    h('tbody', {}, Object.entries(proposal.params).map(([name, value]) => h('tr', {},
      h('th', { scope: 'row' }, name), h('td', {}, paramText(proposal.kind, name, value))))));
}
