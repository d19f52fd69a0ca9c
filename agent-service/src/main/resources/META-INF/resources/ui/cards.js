// Proposal cards: what the executor staged (its summary, diff and tier, never the model's words), the decision
// window, Confirm and Cancel with the one-time token, live status by polling the executor, Undo while allowed.

import { executor, executorWithStatus, explain, currentSession, sessionSignal, isSignedOut } from './api.js';
import { h, announce, uniqueId, formatTime } from './dom.js';

const KINDS = {
  'ledger.transaction.create': 'Add a transaction',
  'ledger.transaction.edit': 'Edit a transaction',
  'ledger.transaction.delete': 'Delete a transaction',
  'ledger.wallet.rename': 'Rename a wallet',
  'training.plan.draft': 'Draft a training plan',
  'training.plan.revise': 'Revise a training plan draft',
  'mail.send': 'Send an e-mail (leaves the system)',
  'ticket.create': 'Open a ticket (leaves the system)',
};
const UNDOABLE = new Set(['ledger.transaction.create', 'ledger.transaction.edit', 'ledger.transaction.delete',
  'ledger.wallet.rename']);
const WAITING = new Set(['staging', 'proposed', 'confirmed', 'executing']);
const POLL_MS = 1500;
// The executor may take a moment to stage a proposal from Kafka; after this long without it the card says so.
const STAGING_PATIENCE_MS = 20000;

// Wallet names by id (GET /api/wallets), so a card says "Checking", not only an id. Read once at sign-in.
const walletNames = new Map();

export function setWalletNames(wallets) {
  walletNames.clear();
  for (const wallet of wallets) {
    walletNames.set(wallet.id, wallet.name);
  }
}

function paramText(name, value) {
  if (name === 'walletId' && walletNames.has(value)) {
    return `${walletNames.get(value)} (${value})`;
  }
  return valueText(value);
}

export function kindLabel(kind) {
  return KINDS[kind] || kind;
}

function tierText(tier) {
  switch ((tier || '').toUpperCase()) {
    case 'HIGH': return 'HIGH impact';
    case 'MEDIUM': return 'MEDIUM impact';
    case 'LOW': return 'LOW impact';
    default: return 'Impact not known yet';
  }
}

function resultReason(result) {
  if (!result) {
    return '';
  }
  if (typeof result === 'string') {
    return result;
  }
  return result.detail || result.reason || result.error || result.message || JSON.stringify(result);
}

function statusText(view, approvals) {
  if (!view) {
    return 'Being staged by the executor…';
  }
  switch (view.status) {
    case 'proposed':
      return approvals
        ? `Waiting for more approvals: ${approvals.approvers.length} of ${approvals.required} so far (${approvals.approvers.join(', ')}).`
        : 'Waiting for your decision. Nothing has been written.'
          + (view.heldReason ? ` Not applied automatically: ${view.heldReason}.` : '');
    case 'confirmed':
    case 'executing': return `Confirmed by ${view.confirmedBy}; running…`;
    case 'executed': return view.autoApplied
      ? 'Executed: applied on arrival by the tier rules (no person confirmed it). You can undo it.'
      : `Executed: confirmed by ${view.confirmedBy}${view.executedAt ? ' at ' + formatTime(view.executedAt) : ''}.`;
    case 'failed': return `Failed: ${resultReason(view.result)}. Nothing was written.`;
    case 'cancelled': return 'Cancelled: nothing was written.';
    case 'expired': return 'Expired: nobody decided in time, nothing was written. Ask the agent again if you still want it.';
    case 'undone': return `Undone by ${view.undoneBy}${view.undoneAt ? ' at ' + formatTime(view.undoneAt) : ''}.`;
    case 'needs_review': return 'Outcome unknown: an administrator must check the vendor and resolve it.';
    default: return view.status;
  }
}

function countdown(expiresAt) {
  const left = Math.max(0, Math.floor((new Date(expiresAt).getTime() - Date.now()) / 1000));
  const minutes = Math.floor(left / 60);
  const seconds = String(left % 60).padStart(2, '0');
  return { left, text: `${minutes}:${seconds}` };
}

function valueText(value) {
  if (value === null || value === undefined) {
    return '—';
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * A card for one action. {@code proposal} is what the agent's reply carried (with its confirm token) or a reference
 * read back later (no token: Confirm then asks the executor for a fresh one, approvers only).
 */
export function actionCard(proposal) {
  const id = proposal.actionId;
  const titleId = uniqueId('card-title');
  let token = proposal.confirmToken || null;
  let view = null;
  let approvals = null;
  let busy = false;
  let pollTimer = null;
  let tickTimer = null;
  let lastStatus = null;
  let warnedMinute = false;
  let detailsKey = null;
  let expiryKey = null;
  let countdownText = null;
  const started = Date.now();
  // The session this card belongs to: when it ends (sign-out, 401) the card stops polling and ticking.
  const signal = sessionSignal();

  const title = h('h3', { id: titleId, text: kindLabel(proposal.kind) });
  const tier = h('span', { class: 'tier', text: tierText(null) });
  const summaryId = uniqueId('card-summary');
  const summary = h('p', { class: 'summary', id: summaryId, text: proposal.summary || '' });
  // Focus lands here after a decision (tabindex -1: reachable by script, not in the tab order).
  const status = h('p', { class: 'status', 'data-role': 'status', tabindex: '-1' });
  const approverOnly = h('p', { class: 'hint approver-only', hidden: true },
    'Only an approver can decide this after a reload; ask one.');
  const expiry = h('p', { class: 'expiry', hidden: true });
  const details = h('div', { class: 'details' });
  const error = h('p', { class: 'card-error', role: 'alert', hidden: true });
  const confirmButton = h('button', { type: 'button', class: 'confirm', 'aria-describedby': summaryId,
    onclick: () => decide('confirm') }, 'Confirm');
  const cancelButton = h('button', { type: 'button', class: 'cancel', 'aria-describedby': summaryId,
    onclick: () => decide('cancel') }, 'Cancel');
  const undoButton = h('button', { type: 'button', class: 'undo', 'aria-describedby': summaryId, hidden: true,
    onclick: undo }, 'Undo');
  const historyButton = h('button', { type: 'button', class: 'history-toggle', 'aria-expanded': 'false',
    onclick: toggleHistory }, 'Show history');
  const history = h('div', { class: 'history', hidden: true });
  const card = h('article', { class: 'card', 'aria-labelledby': titleId, 'data-action-id': id,
    'data-status': 'staging' },
  h('header', { class: 'card-head' }, title, tier),
  summary, status, expiry, details, error, approverOnly,
  h('div', { class: 'buttons', role: 'group', 'aria-label': 'Decision' },
    confirmButton, cancelButton, undoButton, historyButton),
  history);

  function setError(message) {
    // The same error again (every poll) is left alone, so the alert is not announced again.
    if ((message || '') === error.textContent && error.hidden === !message) {
      return;
    }
    error.textContent = message || '';
    error.hidden = !message;
  }

  /** After a decision: focus Undo when it appeared, else the card's status (unless the session ended meanwhile). */
  function focusAfterDecision() {
    if (signal.aborted || !card.isConnected) {
      return;
    }
    (undoButton.hidden ? status : undoButton).focus();
  }

  function render() {
    const state = view ? view.status : 'staging';
    card.dataset.status = state;
    if (view) {
      title.textContent = kindLabel(view.kind);
      summary.textContent = view.summary;
      tier.textContent = tierText(view.tier);
      tier.className = `tier tier-${(view.tier || '').toLowerCase()}`;
      // Rebuilt only when what it shows changed, so a screen reader is not handed the same table every poll.
      const key = JSON.stringify([view.diff, view.params, view.targetBefore, view.requestedBy, view.proposedAt,
        view.status, view.result]);
      if (key !== detailsKey) {
        detailsKey = key;
        renderDetails();
      }
    }
    const statusNow = staleStaging() ? 'The executor has not staged this proposal yet. It may have been rejected '
      + '(for example, agent writes are switched off); check “Pending” or ask the agent again.' : statusText(view, approvals);
    if (status.textContent !== statusNow) {
      status.textContent = statusNow;
    }
    const open = view && view.status === 'proposed';
    const windowLeft = open && view.expiresAt ? countdown(view.expiresAt).left > 0 : open;
    // Without a token (after a reload) deciding needs a fresh one, which only approvers may have issued.
    const mayDecide = Boolean(token) || isApprover();
    confirmButton.hidden = (!open && view !== null) || (open && !mayDecide);
    cancelButton.hidden = confirmButton.hidden;
    approverOnly.hidden = !(open && !mayDecide);
    confirmButton.disabled = busy || !open || !windowLeft;
    cancelButton.disabled = busy || !open || !windowLeft;
    confirmButton.textContent = token || !open ? 'Confirm' : 'Confirm (issues a fresh token)';
    undoButton.hidden = !(view && view.status === 'executed' && UNDOABLE.has(view.kind));
    undoButton.disabled = busy;
    renderExpiry();
    if (lastStatus !== state && lastStatus !== null) {
      announce(`${kindLabel(view ? view.kind : proposal.kind)}: ${statusText(view, approvals)}`);
    }
    lastStatus = state;
  }

  function staleStaging() {
    return view === null && Date.now() - started > STAGING_PATIENCE_MS;
  }

  function renderExpiry() {
    if (!view || view.status !== 'proposed' || !view.expiresAt) {
      expiry.hidden = true;
      expiryKey = null;
      countdownText = null;
      return;
    }
    const { left, text } = countdown(view.expiresAt);
    const key = `${view.expiresAt}|${left > 0}`;
    expiry.hidden = false;
    if (key !== expiryKey) {
      expiryKey = key;
      countdownText = left > 0 ? document.createTextNode(text) : null;
      expiry.replaceChildren(left > 0
        ? h('span', {}, 'Decision window closes in ', h('time', { datetime: view.expiresAt, class: 'countdown' },
          countdownText), ` (at ${formatTime(view.expiresAt)}).`)
        : 'Decision window closed: it can no longer be confirmed and will be marked expired.');
    } else if (countdownText && countdownText.data !== text) {
      countdownText.data = text;
    }
    expiry.classList.toggle('urgent', left <= 60);
    if (left <= 60 && left > 0 && !warnedMinute) {
      warnedMinute = true;
      announce(`Less than a minute left to decide: ${view.summary}`);
    }
  }

  /** Every second: only the countdown's text changes, unless the window just closed or staging took too long. */
  function tick() {
    if (view && view.status === 'proposed' && view.expiresAt) {
      const closed = countdown(view.expiresAt).left <= 0;
      if (closed !== (expiryKey || '').endsWith('|false')) {
        render();
      } else {
        renderExpiry();
      }
    } else if (view === null && staleStaging()) {
      render();
    }
  }

  function renderDetails() {
    const parts = [];
    if (view.diff && view.diff.length > 0) {
      parts.push(h('table', { class: 'diff' },
        h('caption', {}, 'What changes (computed by the executor)'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'Now'),
          h('th', { scope: 'col' }, 'After'))),
        h('tbody', {}, view.diff.map((change) => h('tr', {},
          h('th', { scope: 'row' }, change.field),
          h('td', { class: 'before' }, h('del', {}, valueText(change.before))),
          h('td', { class: 'after' }, h('ins', {}, valueText(change.after))))))));
    } else if (view.params) {
      parts.push(h('table', { class: 'diff' },
        h('caption', {}, view.targetBefore ? 'What it does' : 'What it adds (nothing exists before)'),
        h('tbody', {}, Object.entries(view.params).map(([name, value]) => h('tr', {},
          h('th', { scope: 'row' }, name), h('td', {}, paramText(name, value)))))));
    }
    const facts = [['Requested by', view.requestedBy], ['Proposed', formatTime(view.proposedAt)]];
    if (view.status === 'executed' && view.result) {
      facts.push(['Result', valueText(view.result)]);
    }
    parts.push(h('dl', { class: 'facts' }, facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)])));
    details.replaceChildren(...parts);
  }

  async function refresh() {
    try {
      view = await executor(`/api/actions/${id}`);
      setError(null);
    } catch (problem) {
      if (isSignedOut(problem)) {
        stop();
        return;
      }
      if (problem.code !== 'action_not_found') {
        setError(explain(problem));
      }
    }
    render();
  }

  function schedule() {
    clearTimeout(pollTimer);
    if (signal.aborted || (!card.isConnected && Date.now() - started > 2000)) {
      stop();
      return;
    }
    if (!view || WAITING.has(view.status)) {
      pollTimer = setTimeout(async () => {
        await refresh();
        schedule();
      }, POLL_MS);
    }
  }

  function stop() {
    clearTimeout(pollTimer);
    clearInterval(tickTimer);
  }

  async function ensureToken() {
    if (token) {
      return token;
    }
    const fresh = await executor(`/api/actions/${id}/reissue-token`, { method: 'POST' });
    token = fresh.confirmToken;
    announce('A fresh confirm token was issued for this card; the old one no longer works.');
    return token;
  }

  async function decide(what) {
    if (busy) {
      return;
    }
    busy = true;
    setError(null);
    render();
    status.textContent = what === 'confirm' ? 'Confirming…' : 'Cancelling…';
    try {
      const body = { token: await ensureToken() };
      if (what === 'confirm') {
        // The hash of what this card shows (the executor's view once loaded, else the proposal it was drawn from):
        // the executor requires it and runs nothing if the stored action differs (params_mismatch).
        body.paramsHash = (view && view.paramsHash) || proposal.paramsHash;
      }
      const answer = await executorWithStatus(`/api/actions/${id}/${what}`, { method: 'POST', body });
      if (answer.body && answer.body.approvers) {
        approvals = answer.body;
        view = answer.body.action;
      } else {
        view = answer.body;
      }
    } catch (problem) {
      if (isSignedOut(problem)) {
        // The sign-out already said so, once; this card stops with its session.
        stop();
        return;
      }
      if (problem.action) {
        view = problem.action;
      }
      if (problem.code === 'action_not_found') {
        token = null;
      }
      setError(explain(problem));
      announce(`Could not ${what}: ${explain(problem)}`);
    } finally {
      busy = false;
      if (!signal.aborted) {
        render();
        schedule();
        focusAfterDecision();
      }
    }
  }

  async function undo() {
    if (busy) {
      return;
    }
    busy = true;
    setError(null);
    render();
    status.textContent = 'Undoing…';
    try {
      view = await executor(`/api/actions/${id}/undo`, { method: 'POST' });
    } catch (problem) {
      if (isSignedOut(problem)) {
        stop();
        return;
      }
      if (problem.action) {
        view = problem.action;
      }
      setError(explain(problem));
      announce(`Could not undo: ${explain(problem)}`);
    } finally {
      busy = false;
      if (!signal.aborted) {
        render();
        focusAfterDecision();
      }
    }
  }

  async function toggleHistory() {
    const open = historyButton.getAttribute('aria-expanded') === 'true';
    if (open) {
      history.hidden = true;
      historyButton.setAttribute('aria-expanded', 'false');
      historyButton.textContent = 'Show history';
      return;
    }
    try {
      history.replaceChildren(historyTable(await executor(`/api/actions/${id}/history`)));
      history.hidden = false;
      historyButton.setAttribute('aria-expanded', 'true');
      historyButton.textContent = 'Hide history';
    } catch (problem) {
      if (!isSignedOut(problem)) {
        setError(explain(problem));
      }
    }
  }

  if (signal.aborted) {
    render();
    return card;
  }
  signal.addEventListener('abort', stop, { once: true });
  tickTimer = setInterval(() => {
    if (signal.aborted || (!card.isConnected && Date.now() - started > 2000)) {
      stop();
      return;
    }
    tick();
  }, 1000);
  render();
  refresh().then(schedule);
  return card;
}

/** Every state an action entered: when, from, to, who, through which channel, why. */
export function historyTable(entries) {
  return h('table', { class: 'history-table' },
    h('caption', {}, 'History (appended by the database)'),
    h('thead', {}, h('tr', {}, ['When', 'From', 'To', 'Who', 'Channel', 'Reason']
      .map((name) => h('th', { scope: 'col' }, name)))),
    h('tbody', {}, entries.map((entry) => h('tr', {},
      h('td', {}, formatTime(entry.at)), h('td', {}, entry.from || '—'), h('td', {}, entry.to),
      h('td', {}, entry.actor || '—'), h('td', {}, entry.channel || '—'), h('td', {}, entry.reason || '')))));
}

export function isApprover() {
  const session = currentSession();
  return session && session.groups.includes('approver');
}
