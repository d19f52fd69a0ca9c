// Action cards of the decision page: what the executor staged (its summary, tier and diff, never the model's words),
// the decision window, Confirm and Cancel, live status by polling, Undo while allowed, the approvals so far, the held
// reason, the history, and an administrator's resolution of an external action whose outcome is unknown.

import { get, post, explain, currentSession, sessionSignal, isSessionEnded } from './api.js';
import { h, announce, uniqueId, formatTime } from '/shared/dom.js';

// Every declared kind (GET /api/kinds): its label, and whether this executor can undo it. The page names no kind.
let kinds = new Map();

export function setKinds(list) {
  kinds = new Map((list || []).map((entry) => [entry.kind, entry]));
}
const WAITING = new Set(['proposed', 'confirmed', 'executing']);
const POLL_MS = 1500;
// How often a waiting card asks again who was told of it (a reminder may have gone out meanwhile).
const NOTICES_MS = 30000;
// A link followed from the chat can arrive before the executor has staged the proposal (it comes through Kafka): a
// card whose action is not found yet keeps looking, this many times (about 30 s), before it gives up.
const LOOKS_FOR_A_NEW_PROPOSAL = 20;
const MAX_NOTE = 500;

// How many approvers a HIGH action needs (GET /api/actions/policy/approvals), read once and after a change.
let approvalPolicy = null;

export function setApprovalPolicy(policy) {
  approvalPolicy = policy;
}

export function kindLabel(kind) {
  return kinds.has(kind) ? kinds.get(kind).label : kind;
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

function valueText(value) {
  if (value === null || value === undefined) {
    return '—';
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function countdown(expiresAt) {
  const left = Math.max(0, Math.floor((new Date(expiresAt).getTime() - Date.now()) / 1000));
  const minutes = Math.floor(left / 60);
  const seconds = String(left % 60).padStart(2, '0');
  return { left, text: `${minutes}:${seconds}` };
}

function isHigh(view) {
  return view && (view.tier || '').toUpperCase() === 'HIGH';
}

function approvalsText(approvals) {
  if (!approvals || approvals.approvers.length === 0) {
    return null;
  }
  const of = approvals.required ? ` of ${approvals.required}` : '';
  return `Waiting for more approvals: ${approvals.approvers.length}${of} so far (${approvals.approvers.join(', ')}).`;
}

function statusText(view, approvals) {
  if (!view) {
    return 'Loading…';
  }
  switch (view.status) {
    case 'proposed':
      return approvalsText(approvals) || ('Waiting for a decision. Nothing has been written.'
        + (view.heldReason ? ` Not applied automatically: ${view.heldReason}.` : ''));
    case 'confirmed':
    case 'executing': return `Confirmed by ${view.confirmedBy}; running…`;
    case 'executed': return view.autoApplied
      ? 'Executed: applied on arrival by the tier rules (no person confirmed it).'
      : `Executed: confirmed by ${view.confirmedBy}${view.executedAt ? ' at ' + formatTime(view.executedAt) : ''}.`;
    case 'failed': return `Failed: ${resultReason(view.result)}. Nothing was written.`;
    case 'cancelled': return 'Cancelled: nothing was written.';
    case 'expired': return `Expired unseen${view.expiresAt ? ' at ' + formatTime(view.expiresAt) : ''}: nobody decided it`
      + ' within its window, and nothing was written. Ask the agent again if you still want it.';
    case 'undone': return `Undone by ${view.undoneBy}${view.undoneAt ? ' at ' + formatTime(view.undoneAt) : ''}.`;
    case 'needs_review': return 'Outcome unknown: an administrator must check the vendor and resolve it.';
    case 'superseded': return 'Superseded: a person edited it before anyone approved it; it will not run. The edit'
      + ' below is a new action that needs its own decision.';
    default: return view.status;
  }
}

/**
 * A card for one action, drawn from {@code GET /api/actions/{id}}: Confirm sends the paramsHash of exactly the view it
 * shows, never one from the link or a list. {@code hint} ({kind, summary}) fills the headline until the view arrives.
 * {@code onView} is told each view the card shows.
 */
export function actionCard(id, { hint = {}, focus = false, onView = () => {}, onEdited = null } = {}) {
  const titleId = uniqueId('card-title');
  let view = null;
  let approvals = null;
  let busy = false;
  let pollTimer = null;
  // How many loads in a row answered "no such action" before the action was ever seen (see LOOKS_FOR_A_NEW_PROPOSAL).
  let notFoundYet = 0;
  let tickTimer = null;
  let lastStatus = null;
  let warnedMinute = false;
  let detailsKey = null;
  let expiryKey = null;
  let countdownText = null;
  let scrolled = !focus;
  const signal = sessionSignal();

  // The headline names what it does, with wallets, transactions and plans by name (the view's headline; a decision's
  // answer names them by id, so the last named headline is kept).
  let namedHeadline = null;
  const headlineOf = (v) => {
    if (v.headline && v.headline !== v.summary) {
      namedHeadline = v.headline;
    }
    return namedHeadline || v.headline || v.summary || kindLabel(v.kind);
  };
  const title = h('h3', { id: titleId, class: 'summary', tabindex: '-1', text: hint.summary || 'Loading the action…' });
  const kind = h('span', { class: 'kind', text: hint.kind ? kindLabel(hint.kind) : '' });
  const tier = h('span', { class: 'tier', text: tierText(null) });
  // Focus lands here after a decision (tabindex -1: reachable by script, not in the tab order).
  const status = h('p', { class: 'status', 'data-role': 'status', tabindex: '-1' });
  const mayNot = h('p', { class: 'hint', hidden: true },
    'Only the owner of what it changes, or an approver who did not ask for it, may decide this.');
  const approvedHint = h('p', { class: 'hint', hidden: true },
    'You approved it; another approver must confirm it. You may still cancel it.');
  const held = h('p', { class: 'held', hidden: true });
  const expiry = h('p', { class: 'expiry', hidden: true });
  // Who was told of it, and its reminder: from the executor's record (GET /api/actions/{id}/deciders).
  const told = h('p', { class: 'told hint', hidden: true });
  // The code a person's second device shows for this action, once anyone was asked there (OpenID CIBA).
  const secondDevice = h('p', { class: 'second-device', hidden: true });
  let notices = null;
  let noticesAt = 0;
  let noticesStatus = null;
  const details = h('div', { class: 'details' });
  const error = h('p', { class: 'card-error', role: 'alert', hidden: true });
  const confirmButton = h('button', { type: 'button', class: 'confirm', 'aria-describedby': titleId,
    onclick: () => decide('confirm') }, 'Confirm');
  const cancelButton = h('button', { type: 'button', class: 'cancel', 'aria-describedby': titleId,
    onclick: () => decide('cancel') }, 'Cancel');
  const undoButton = h('button', { type: 'button', class: 'undo', 'aria-describedby': titleId, hidden: true,
    onclick: undo }, 'Undo');
  const editButton = h('button', { type: 'button', class: 'edit', 'aria-describedby': titleId, hidden: true,
    'aria-expanded': 'false', onclick: toggleEdit }, 'Edit');
  const editForm = h('form', { class: 'edit-form', hidden: true });
  // The edit relation (from the executor's view): what this action replaced, or what replaced it, as links.
  const edited = h('div', { class: 'edited', hidden: true });
  let editedKey = null;
  let editedLoading = null;
  const historyButton = h('button', { type: 'button', class: 'history-toggle', 'aria-expanded': 'false',
    'aria-describedby': titleId, onclick: toggleHistory }, 'Show history');
  const history = h('div', { class: 'history', hidden: true });
  const resolveForm = resolutionForm();
  const card = h('article', { class: 'card', 'aria-labelledby': titleId, 'data-action-id': id,
    'data-status': 'loading' },
  h('header', { class: 'card-head' }, title, h('span', { class: 'labels' }, kind, tier)),
  status, held, expiry, told, secondDevice, edited, details, error, mayNot, approvedHint,
  h('div', { class: 'buttons', role: 'group', 'aria-label': 'Decision' },
    confirmButton, cancelButton, editButton, undoButton, historyButton),
  editForm, resolveForm, history);

  function setError(message) {
    // The same error again (every poll) is left alone, so the alert is not announced again.
    if ((message || '') === error.textContent && error.hidden === !message) {
      return;
    }
    error.textContent = message || '';
    error.hidden = !message;
  }

  /** Whether the executor's decision rule lets this person do {@code operation} to the action (its view's youMay). */
  function allows(operation) {
    return Boolean(view && Array.isArray(view.youMay) && view.youMay.includes(operation));
  }

  /** A decision's answer says nothing of what this person may do: it keeps what the last read of the action said. */
  function adopt(next) {
    if (next && !Array.isArray(next.youMay) && view && Array.isArray(view.youMay)) {
      next.youMay = view.youMay;
    }
    return next;
  }

  /**
   * A decision, undo or edit the executor refused: the card takes the action as the answer shows it (the winner's
   * status, when someone decided first) and says why. False when the session ended (the page said so; nothing more).
   */
  function refused(problem, what) {
    if (isSessionEnded(problem)) {
      stop();
      return false;
    }
    if (problem.action) {
      view = adopt(problem.action);
    }
    setError(explain(problem));
    announce(`Could not ${what}: ${explain(problem)}`);
    return true;
  }

  /** After a decision: focus Undo when it appeared, else the card's status (unless the session ended meanwhile). */
  function focusAfterDecision() {
    if (signal.aborted || !card.isConnected) {
      return;
    }
    (undoButton.hidden ? status : undoButton).focus();
  }

  function render() {
    const state = view ? view.status : 'loading';
    card.dataset.status = state;
    if (view) {
      title.textContent = headlineOf(view);
      kind.textContent = kindLabel(view.kind);
      tier.textContent = tierText(view.tier);
      tier.className = `tier tier-${(view.tier || '').toLowerCase()}`;
      // Rebuilt only when what it shows changed, so a screen reader is not handed the same table every poll.
      const key = JSON.stringify([view.diff, view.params, view.targetBefore, view.requestedBy, view.proposedAt,
        view.status, view.result, view.conversationId, view.mcpClient]);
      if (key !== detailsKey) {
        detailsKey = key;
        renderDetails();
      }
    }
    const statusNow = statusText(view, approvals);
    if (status.textContent !== statusNow) {
      status.textContent = statusNow;
    }
    const open = view !== null && view.status === 'proposed';
    held.hidden = !(open && view.heldReason && approvalsText(approvals));
    held.textContent = open && view.heldReason ? `Not applied automatically: ${view.heldReason}.` : '';
    const windowLeft = open && view.expiresAt ? countdown(view.expiresAt).left > 0 : open;
    // What the executor's decision rule lets this person do (youMay of the action's view), never a rule of the page's.
    const mayConfirm = open && allows('confirm');
    const mayCancel = open && allows('cancel');
    const session = currentSession();
    const approvedAlready = Boolean(approvals && session && approvals.approvers.includes(session.user));
    confirmButton.hidden = !mayConfirm || approvedAlready;
    cancelButton.hidden = !mayCancel;
    mayNot.hidden = !(open && !mayConfirm && !mayCancel);
    approvedHint.hidden = !(mayConfirm && approvedAlready);
    confirmButton.disabled = busy || !windowLeft;
    cancelButton.disabled = busy || !windowLeft;
    const undoable = view && kinds.has(view.kind) && kinds.get(view.kind).undoable;
    undoButton.hidden = !(undoable && view.status === 'executed' && allows('undo'));
    undoButton.disabled = busy;
    resolveForm.hidden = !(view && view.status === 'needs_review' && allows('resolve'));
    resolveForm.querySelectorAll('input, textarea, button').forEach((control) => { control.disabled = busy; });
    renderExpiry();
    renderTold();
    renderEdited();
    const editable = view && kinds.has(view.kind) ? kinds.get(view.kind).personEditable || [] : [];
    editButton.hidden = !(open && allows('cancel') && editable.length > 0);
    editButton.disabled = busy || !windowLeft;
    if (editButton.hidden && !editForm.hidden) {
      closeEdit();
    }
    if (lastStatus !== state && lastStatus !== null && lastStatus !== 'loading') {
      announce(`${title.textContent}: ${statusNow}`);
    }
    lastStatus = state;
    if (view && !scrolled && card.isConnected) {
      scrolled = true;
      card.scrollIntoView({ block: 'start' });
    }
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
      announce(`Less than a minute left to decide: ${headlineOf(view)}`);
    }
  }

  /** A link to another action's card on this page. */
  function actionLink(otherId, text) {
    return h('a', { href: `?action=${encodeURIComponent(otherId)}` }, text);
  }

  /**
   * The edit relation: a superseded action links to its edit; an edit says who changed what, against the action it
   * replaced (both read from the executor; the changes are its parameters side by side).
   */
  async function renderEdited() {
    const key = view ? `${view.supersedes}|${view.supersededBy}` : null;
    if (key === editedKey || key === editedLoading) {
      return;
    }
    if (view && view.supersededBy) {
      editedKey = key;
      edited.hidden = false;
      edited.replaceChildren(h('p', {}, actionLink(view.supersededBy, 'Open the edit that replaced it')));
      return;
    }
    if (!(view && view.supersedes)) {
      editedKey = key;
      edited.hidden = true;
      edited.replaceChildren();
      return;
    }
    const editor = view.requestedBy;
    editedLoading = key;
    let before = null;
    try {
      before = await get(`/api/actions/${encodeURIComponent(view.supersedes)}`);
    } catch (problem) {
      // Not readable (or gone): the relation is still shown, without the values.
    }
    editedLoading = null;
    // The relation of an action never changes; a poll meanwhile replaced the view object, not what it links.
    if (!view || `${view.supersedes}|${view.supersededBy}` !== key) {
      return;
    }
    editedKey = key;
    const editable = kinds.has(view.kind) ? (kinds.get(view.kind).personEditable || []).map((p) => p.name) : [];
    const changes = before ? editable.filter((field) => JSON.stringify(before.params[field])
      !== JSON.stringify(view.params[field])) : [];
    edited.hidden = false;
    edited.replaceChildren(
      h('p', {}, `Edited by ${editor} before approval, replacing `, actionLink(view.supersedes, 'the proposal'), '.'),
      changes.length === 0 ? null : h('table', { class: 'diff edit-diff' },
        h('caption', {}, `What ${editor} changed`),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'Proposed'),
          h('th', { scope: 'col' }, 'Edited'))),
        h('tbody', {}, changes.map((field) => h('tr', {},
          h('th', { scope: 'row' }, field),
          h('td', { class: 'before' }, h('del', {}, valueText(before.params[field]))),
          h('td', { class: 'after' }, h('ins', {}, valueText(view.params[field]))))))));
  }

  function closeEdit() {
    editForm.hidden = true;
    editForm.replaceChildren();
    editButton.setAttribute('aria-expanded', 'false');
  }

  /** The parameters its kind lets a person change, each prefilled; saving stages a new action that replaces it. */
  function toggleEdit() {
    if (!editForm.hidden) {
      closeEdit();
      editButton.focus();
      return;
    }
    const editable = kinds.has(view.kind) ? kinds.get(view.kind).personEditable || [] : [];
    const shownHash = view.paramsHash;
    const shownParams = view.params || {};
    const inputs = editable.map((param) => {
      const inputId = uniqueId(`edit-${param.name}`);
      const value = shownParams[param.name] === undefined || shownParams[param.name] === null
        ? '' : String(shownParams[param.name]);
      const input = h('input', { id: inputId, name: param.name, value,
        type: param.type === 'date' ? 'date' : 'text',
        inputmode: param.type === 'money' ? 'decimal' : null,
        maxlength: param.maxLength > 0 ? String(param.maxLength) : null });
      return { param, input, label: h('label', { for: inputId }, param.name), original: value };
    });
    editForm.replaceChildren(h('fieldset', {},
      h('legend', {}, 'Edit before approving: a new action replaces this one and needs its own decision'),
      ...inputs.flatMap(({ label, input }) => [label, input])),
    h('button', { type: 'submit' }, 'Save the edit'),
    h('button', { type: 'button', onclick: () => { closeEdit(); editButton.focus(); } }, 'Keep it as it is'));
    editForm.onsubmit = async (event) => {
      event.preventDefault();
      if (busy) {
        return;
      }
      const changes = {};
      inputs.forEach(({ param, input, original }) => {
        if (input.value !== original) {
          changes[param.name] = input.value === '' ? null : input.value;
        }
      });
      busy = true;
      setError(null);
      render();
      try {
        const answer = await post(`/api/actions/${encodeURIComponent(id)}/edit`,
          { paramsHash: shownHash, params: changes });
        announce(`Edited: a new action replaces it and waits for a decision (${tierText(answer.body.tier)}).`);
        closeEdit();
        if (onEdited) {
          onEdited(answer.body.id);
        } else {
          card.replaceWith(actionCard(answer.body.id, { focus: true }));
        }
      } catch (problem) {
        if (!refused(problem, 'edit')) {
          return;
        }
      } finally {
        busy = false;
        if (!signal.aborted) {
          render();
          schedule();
        }
      }
    };
    editForm.hidden = false;
    editButton.setAttribute('aria-expanded', 'true');
    if (inputs.length > 0) {
      inputs[0].input.focus();
    }
  }

  /** Who was told, through which channel, and the reminder; for an action waiting or expired unseen. */
  function renderTold() {
    const shown = view && notices && (view.status === 'proposed' || view.status === 'expired');
    const sent = shown ? notices.told.filter((notice) => notice.state === 'sent') : [];
    const channel = (name) => ({ email: 'e-mail', second_device: 'second device' }[name] || name);
    // By username where the executor knows it (a user id need not be one).
    const names = new Map(shown ? notices.deciders.filter((decider) => decider.username)
      .map((decider) => [decider.userId, decider.username]) : []);
    const person = (userId) => names.get(userId) || userId;
    const people = [...new Set(sent.filter((notice) => notice.purpose === 'waiting')
      .map((notice) => `${person(notice.recipient)} (${channel(notice.channel)})`))];
    const parts = [];
    if (shown && people.length > 0) {
      parts.push(`Told: ${people.join(', ')}.`);
    } else if (shown && view.status === 'expired') {
      parts.push('Nobody was told of it.');
    }
    if (shown && notices.remindedAt) {
      const reminded = [...new Set(sent.filter((notice) => notice.purpose === 'reminder')
        .map((notice) => person(notice.recipient)))];
      parts.push(`Reminder at ${formatTime(notices.remindedAt)}${reminded.length ? ': ' + reminded.join(', ') : ''}.`);
    }
    const text = parts.join(' ');
    if (told.textContent !== text) {
      told.textContent = text;
    }
    told.hidden = text === '';
    const code = view && view.status === 'proposed' && notices ? notices.secondDeviceCode : null;
    const codeText = code ? `Second-device code: ${code}. Approve on a device only if it shows this code.` : '';
    if (secondDevice.textContent !== codeText) {
      secondDevice.textContent = codeText;
    }
    secondDevice.hidden = !code;
  }

  /** Every second: only the countdown's text changes, unless the window just closed. */
  function tick() {
    if (view && view.status === 'proposed' && view.expiresAt) {
      const closed = countdown(view.expiresAt).left <= 0;
      if (closed !== (expiryKey || '').endsWith('|false')) {
        render();
      } else {
        renderExpiry();
      }
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
          h('th', { scope: 'row' }, name), h('td', {}, valueText(value)))))));
    }
    if (view.targetBefore && typeof view.targetBefore === 'object' && !(view.diff && view.diff.length > 0)) {
      // A delete (or another kind without an edit diff): the row as it was when the action was staged.
      parts.push(h('table', { class: 'diff target' },
        h('caption', {}, 'The row it acts on, as it was when proposed'),
        h('tbody', {}, Object.entries(view.targetBefore).map(([name, value]) => h('tr', {},
          h('th', { scope: 'row' }, name), h('td', {}, valueText(value)))))));
    }
    const facts = [['Requested by', view.requestedBy], ['Proposed', formatTime(view.proposedAt)]];
    if (view.mcpClient) {
      // Named by the identity provider in the evidence (docs/mcp.md); the agent behind that client is not ours.
      facts.push(['Proposed through', `the MCP client ${view.mcpClient} (an agent Countersign cannot see into)`]);
    }
    if (view.status === 'executed' && view.result) {
      facts.push(['Result', valueText(view.result)]);
    }
    parts.push(h('dl', { class: 'facts' }, facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)])));
    details.replaceChildren(...parts);
  }

  /** The approvers so far of a proposed HIGH action; the number needed comes from the tenant's approval policy. */
  async function refreshApprovals() {
    if (!(view && view.status === 'proposed' && isHigh(view))) {
      approvals = null;
      return;
    }
    const approvers = await get(`/api/actions/${encodeURIComponent(id)}/approvals`);
    approvals = { approvers, required: approvalPolicy ? approvalPolicy.highApprovals : null };
  }

  /** The record of who was told: again when the status changed, and every half minute while it waits. */
  async function refreshNotices() {
    const wanted = view && (view.status === 'proposed' || view.status === 'expired');
    if (!wanted) {
      notices = null;
      return;
    }
    if (noticesStatus === view.status && Date.now() - noticesAt < NOTICES_MS) {
      return;
    }
    try {
      notices = await get(`/api/actions/${encodeURIComponent(id)}/deciders`);
      noticesStatus = view.status;
      noticesAt = Date.now();
    } catch (problem) {
      if (isSessionEnded(problem)) {
        throw problem;
      }
      // The record of who was told is a help, not the decision: the card stands without it.
    }
  }

  async function refresh() {
    try {
      view = await get(`/api/actions/${encodeURIComponent(id)}`);
      await refreshApprovals();
      await refreshNotices();
      setError(null);
      onView(view);
    } catch (problem) {
      if (isSessionEnded(problem)) {
        stop();
        return;
      }
      notFoundYet = view === null && problem.code === 'action_not_found' ? notFoundYet + 1 : 0;
      setError(notFoundYet > 0 && notFoundYet <= LOOKS_FOR_A_NEW_PROPOSAL
        ? 'Not found yet: a proposal the agent just made can take a moment to reach the executor. Still looking…'
        : explain(problem));
    }
    render();
  }

  function schedule() {
    clearTimeout(pollTimer);
    if (signal.aborted || !card.isConnected) {
      stop();
      return;
    }
    const lookingForIt = view === null && notFoundYet > 0 && notFoundYet <= LOOKS_FOR_A_NEW_PROPOSAL;
    if ((view && WAITING.has(view.status)) || lookingForIt) {
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

  /** What the executor answered a decision: an ActionView, or (202) an ApprovalProgress holding one. */
  function took(answer) {
    if (answer.body && Array.isArray(answer.body.approvers)) {
      approvals = { approvers: answer.body.approvers, required: answer.body.required };
      view = adopt(answer.body.action);
    } else {
      view = adopt(answer.body);
      approvals = null;
    }
    onView(view);
  }

  async function decide(what) {
    if (busy || !view) {
      return;
    }
    busy = true;
    setError(null);
    render();
    status.textContent = what === 'confirm' ? 'Confirming…' : 'Cancelling…';
    try {
      // Confirm names the hash of exactly the view this card shows, as the executor sent it: the executor runs
      // nothing if the stored action differs (params_mismatch). Cancel needs none: refusing depends on nothing shown.
      const body = what === 'confirm' ? { paramsHash: view.paramsHash } : {};
      took(await post(`/api/actions/${encodeURIComponent(id)}/${what}`, body));
      announce(what === 'confirm' ? `Confirmed: ${statusText(view, approvals)}` : 'Cancelled: nothing was written.');
    } catch (problem) {
      if (!refused(problem, what)) {
        return;
      }
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
      const answer = await post(`/api/actions/${encodeURIComponent(id)}/undo`, {});
      if (answer.status === 202) {
        // An action k approvers let run is undone only when k persons have asked (the executor counts them).
        view = adopt(answer.body.action);
        onView(view);
        announce(`Undo recorded: ${answer.body.undoApprovers.length} of ${answer.body.required} people have asked;`
          + ' it is undone when the last one does.');
        return;
      }
      took(answer);
    } catch (problem) {
      if (!refused(problem, 'undo')) {
        return;
      }
    } finally {
      busy = false;
      if (!signal.aborted) {
        render();
        focusAfterDecision();
      }
    }
  }

  /** An administrator's finding for an external action in needs_review: the vendor did act, or did not. */
  function resolutionForm() {
    const noteId = uniqueId('resolve-note');
    const legendId = uniqueId('resolve-legend');
    const form = h('form', { class: 'resolve', hidden: true, 'aria-labelledby': legendId },
      h('fieldset', {},
        h('legend', { id: legendId }, 'Resolve (administrators): what did the vendor do?'),
        h('label', {}, h('input', { type: 'radio', name: 'outcome', value: 'executed', required: true }),
          'It acted: mark the action executed'),
        h('label', {}, h('input', { type: 'radio', name: 'outcome', value: 'failed' }),
          'It did not act: mark the action failed')),
      h('label', { for: noteId }, 'What you checked at the vendor'),
      h('textarea', { id: noteId, name: 'note', rows: '2', maxlength: String(MAX_NOTE), required: true }),
      h('button', { type: 'submit' }, 'Record the outcome'));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (busy) {
        return;
      }
      const outcome = form.elements.outcome.value;
      const note = form.elements.note.value.trim();
      if (!outcome || !note) {
        setError('Choose what the vendor did and say what you checked.');
        return;
      }
      busy = true;
      setError(null);
      render();
      try {
        const answer = await post(`/api/actions/${encodeURIComponent(id)}/resolve`, { outcome, note });
        took(answer);
        form.reset();
        announce(`Resolved: ${statusText(view, approvals)}`);
      } catch (problem) {
        if (isSessionEnded(problem)) {
          stop();
          return;
        }
        setError(explain(problem));
        announce(`Not resolved: ${explain(problem)}`);
      } finally {
        busy = false;
        if (!signal.aborted) {
          render();
          focusAfterDecision();
        }
      }
    });
    return form;
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
      history.replaceChildren(historyTable(await get(`/api/actions/${encodeURIComponent(id)}/history`)));
      history.hidden = false;
      historyButton.setAttribute('aria-expanded', 'true');
      historyButton.textContent = 'Hide history';
    } catch (problem) {
      if (!isSessionEnded(problem)) {
        setError(explain(problem));
      }
    }
  }

  render();
  if (signal.aborted) {
    return card;
  }
  signal.addEventListener('abort', stop, { once: true });
  let wasConnected = false;
  tickTimer = setInterval(() => {
    // Stops with the session, and when the card leaves the page (a list refreshed).
    if (signal.aborted || (wasConnected && !card.isConnected)) {
      stop();
      return;
    }
    if (card.isConnected) {
      wasConnected = true;
      tick();
    }
  }, 1000);
  // The first load starts once the card is on the page (the caller appends it in this task).
  setTimeout(() => refresh().then(schedule), 0);
  if (focus) {
    setTimeout(() => title.focus(), 0);
  }
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
