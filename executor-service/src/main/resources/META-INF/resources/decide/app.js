// The decision page, on executor-service's own origin: the pending inbox, action cards (confirm, cancel, undo,
// resolve), imports to review, training plans to commit, activity, trust and policy. The server signs people in before
// serving it (a session cookie); the chat on agent-service only links here. ?action=<id> opens that action's card;
// ?view=inbox|imports|plans|activity|settings picks a view.

import {
  loadSession, currentSession, inGroup, get, put, explain, whenSessionEnded, sessionSignal, isSessionEnded,
} from './api.js';
import { h, announce, clearAnnouncements, showAlert, clearAlert, formatTime } from '/shared/dom.js';
import { actionCard, historyTable, kindLabel, setApprovalPolicy, setKinds } from './cards.js';
import { showImports } from './imports.js';
import { showPlans } from './plans.js';
import { showPolicyChanges } from './policy-changes.js';

const $ = (id) => document.getElementById(id);
const VIEWS = ['inbox', 'imports', 'plans', 'activity', 'settings'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INBOX_COUNT_MS = 10000;
let inboxTimer = null;
let focusedId = null;

/** Shows an error, unless the session ended: the page said so once already. */
function fail(prefix, problem) {
  if (!isSessionEnded(problem)) {
    showAlert(`${prefix} ${explain(problem)}`);
  }
}

/** A link back into the chat: its own conversation when the action is the signed-in person's, else the chat. */
function chatLink(conversationId) {
  const chatUrl = currentSession().chatUrl.replace(/\/+$/, '');
  return conversationId ? `${chatUrl}/#c=${encodeURIComponent(conversationId)}` : chatUrl;
}

/** Only web addresses become links (defence in depth: the session answer is this server's own). */
function webUrl(url) {
  return typeof url === 'string' && /^https?:\/\/[^\s]+$/i.test(url) ? url : null;
}

// ---- the action the link named ----

function showFocused(id) {
  if (!UUID.test(id)) {
    showAlert('This link does not name an action (its id is not valid). Open the pending decisions below instead.');
    return;
  }
  focusedId = id.toLowerCase();
  $('focused').hidden = false;
  $('focused-card').replaceChildren(actionCard(focusedId, {
    focus: true,
    // An edit replaced it: the page now names the new action (a reload shows it, and the old one links to it).
    onEdited: (editedId) => {
      window.history.replaceState(null, '', `?action=${encodeURIComponent(editedId)}`);
      showFocused(editedId);
    },
    onView: (view) => {
      // Back to the conversation the action came from, when it is the signed-in person's own.
      const session = currentSession();
      if (session.chatUrl && view.conversationId && view.requestedBy === session.user) {
        $('back-to-chat').href = chatLink(view.conversationId);
      }
    },
  }));
}

// ---- pending inbox, activity, trust and policy ----

async function refreshInboxCount() {
  try {
    const page = await get('/api/actions?status=proposed&limit=100');
    const count = page.items.length;
    $('inbox-count').textContent = count ? `(${count}${page.nextCursor ? '+' : ''})` : '';
    return page;
  } catch (problem) {
    return null;
  }
}

async function showInbox() {
  const inbox = $('inbox');
  inbox.replaceChildren(h('p', { role: 'status' }, 'Loading…'));
  const page = await refreshInboxCount();
  if (sessionSignal().aborted) {
    return;
  }
  if (page === null) {
    inbox.replaceChildren(h('p', { class: 'card-error' }, 'Could not load pending decisions. Press Refresh in a '
      + 'moment; if it keeps failing, reload the page.'));
    return;
  }
  // The action the link named is shown once, above: two cards of one action would disagree while one decides. The
  // rest soonest to close first: the one whose window closes next is the one to decide next.
  const closes = (item) => (item.expiresAt ? new Date(item.expiresAt).getTime() : Number.MAX_SAFE_INTEGER);
  const items = page.items.filter((item) => item.id !== focusedId).sort((a, b) => closes(a) - closes(b));
  const session = currentSession();
  inbox.replaceChildren(...(items.length === 0 ? [h('p', {}, 'Nothing else waits for a decision.')]
    : items.map((item) => h('div', { class: 'inbox-item' },
      item.expiresAt ? h('p', { class: 'hint inbox-closes' }, `Closes at ${formatTime(item.expiresAt)}`) : null,
      session.chatUrl && item.conversationId && item.requestedBy === session.user
        ? h('p', { class: 'hint' }, h('a', { href: chatLink(item.conversationId) }, 'From your conversation'))
        : null,
      actionCard(item.id, { hint: { summary: item.summary, kind: item.kind } })))));
}

async function showActivity() {
  const area = $('activity');
  area.replaceChildren(h('p', { role: 'status' }, 'Loading…'));
  let page;
  try {
    page = await get('/api/actions?limit=30');
  } catch (problem) {
    if (!isSessionEnded(problem)) {
      area.replaceChildren(h('p', { class: 'card-error' }, `Could not load the activity. ${explain(problem)}`));
    }
    return;
  }
  const detail = h('div', { class: 'activity-detail' });
  area.replaceChildren(h('table', { class: 'activity-table' },
    h('caption', {}, 'Newest first'),
    h('thead', {}, h('tr', {}, ['Proposed', 'What', 'Summary', 'Tier', 'Status', 'By', '']
      .map((name) => h('th', { scope: 'col' }, name)))),
    h('tbody', {}, page.items.map((item) => h('tr', { 'data-action-id': item.id },
      h('td', {}, formatTime(item.proposedAt)), h('td', {}, kindLabel(item.kind)),
      h('td', {}, h('a', { href: `?action=${encodeURIComponent(item.id)}` }, item.summary)),
      h('td', {}, item.tier), h('td', {}, item.status + (item.autoApplied ? ' (applied on arrival)' : '')),
      h('td', {}, item.requestedBy),
      h('td', {}, h('button', { type: 'button', 'aria-label': `History of: ${item.summary}`,
        onclick: async () => {
          try {
            detail.replaceChildren(h('h3', { tabindex: '-1' }, item.summary),
              historyTable(await get(`/api/actions/${encodeURIComponent(item.id)}/history`)));
            detail.querySelector('h3').focus();
          } catch (problem) {
            if (!isSessionEnded(problem)) {
              detail.replaceChildren(h('p', { class: 'card-error' }, explain(problem)));
            }
          }
        } }, 'History')))))), detail);
}

async function showSettings() {
  const admin = inGroup('admin');
  $('admin-hint').textContent = admin ? 'You are an administrator of your tenant: changes apply to everyone in it and are audited.'
    : 'Only administrators can change these settings; ask one of your tenant if they need to change.';
  for (const form of ['agent-writes-form', 'external-sends-form', 'approvals-form']) {
    $(form).querySelectorAll('input, button').forEach((control) => { control.disabled = !admin; });
  }
  try {
    const trust = await get('/api/actions/trust');
    $('trust').textContent = `${trust.mediumConfirmedInARow} of ${trust.needed} medium-impact actions confirmed in a row. `
      + (trust.mediumAutoApplies ? 'Medium-impact actions now apply on arrival (while agent writes are enabled).'
        : 'Medium-impact actions wait for a person.')
      + (trust.resetBecause ? ` Last reset: ${trust.resetBecause} (${formatTime(trust.resetAt)}).` : '');
    const writes = await get('/api/actions/policy/agent-writes');
    const radio = $('agent-writes-form').querySelector(`input[value="${writes.mode}"]`);
    if (radio) {
      radio.checked = true;
    }
    const sends = await get('/api/actions/policy/external-sends');
    $('external-sends-form').elements.enabled.checked = sends.enabled;
    const approvals = await get('/api/actions/policy/approvals');
    setApprovalPolicy(approvals);
    $('approvals-form').elements.highApprovals.value = approvals.highApprovals;
    $('approvals-form').elements.highNeedsOtherApprover.checked = approvals.highNeedsOtherApprover;
    await showPolicyChanges(showSettings);
  } catch (problem) {
    fail('Could not load trust and policy.', problem);
  }
}

/**
 * A policy form: a change that keeps or tightens protection is saved at once (200); one that weakens it waits for a
 * second administrator (202), listed under "Changes waiting for a second administrator".
 */
function policyForm(formId, path, bodyOf, saidOf, after = () => {}) {
  $(formId).addEventListener('submit', async (event) => {
    event.preventDefault();
    clearAlert();
    try {
      const answer = await put(path, bodyOf($(formId).elements));
      if (answer.status === 202) {
        announce('This change weakens your tenant\'s protection: it waits for a second administrator to confirm it.');
        await showPolicyChanges(showSettings);
        return;
      }
      after(answer.body);
      announce(saidOf($(formId).elements));
    } catch (problem) {
      fail('Not saved.', problem);
    }
  });
}

// ---- shell ----

function switchView(name, { fromUrl = false } = {}) {
  const view = VIEWS.includes(name) ? name : 'inbox';
  for (const button of document.querySelectorAll('nav [data-view]')) {
    button.setAttribute('aria-current', button.dataset.view === view ? 'page' : 'false');
  }
  for (const each of VIEWS) {
    $(`view-${each}`).hidden = each !== view;
  }
  if (!fromUrl) {
    // The URL names the view (a reload or a shared link opens it again), and still the action it was opened for.
    const query = new URLSearchParams(location.search);
    query.set('view', view);
    history.replaceState(null, '', `?${query}`);
  }
  clearInterval(inboxTimer);
  inboxTimer = null;
  if (view === 'inbox') {
    showInbox();
    // Cards poll their own status; the count in the tab is refreshed, Refresh reloads the list.
    inboxTimer = setInterval(refreshInboxCount, INBOX_COUNT_MS);
  } else if (view === 'imports') {
    showImports();
  } else if (view === 'plans') {
    showPlans();
  } else if (view === 'activity') {
    showActivity();
  } else {
    showSettings();
  }
}

/**
 * The session ended (the first 401 or 499): every request and timer stopped with the session's signal (api.js); the
 * page says so once and offers to sign in again, which comes back to this very page.
 */
function sessionEnded() {
  clearInterval(inboxTimer);
  inboxTimer = null;
  clearAnnouncements();
  clearAlert();
  $('app').hidden = true;
  $('loading').hidden = true;
  $('who').hidden = true;
  $('sign-out').hidden = true;
  $('back-to-chat').hidden = true;
  for (const area of ['focused-card', 'inbox', 'imports', 'plans', 'activity']) {
    $(area).replaceChildren();
  }
  $('sign-in-again').href = location.href;
  $('session-ended').hidden = false;
  $('session-ended-title').focus();
}

function wire() {
  // The skip link moves focus by script, so the URL keeps naming the action and the view.
  document.querySelector('a.skip').addEventListener('click', (event) => {
    event.preventDefault();
    $('main').focus();
  });
  for (const button of document.querySelectorAll('nav [data-view]')) {
    button.addEventListener('click', () => switchView(button.dataset.view));
  }
  $('inbox-refresh').addEventListener('click', showInbox);
  $('activity-refresh').addEventListener('click', showActivity);
  $('imports-refresh').addEventListener('click', showImports);
  $('plans-refresh').addEventListener('click', showPlans);
  policyForm('agent-writes-form', '/api/actions/policy/agent-writes',
    (form) => ({ mode: form.agentWrites.value }), (form) => `Agent writes saved: ${form.agentWrites.value}.`);
  policyForm('external-sends-form', '/api/actions/policy/external-sends',
    (form) => ({ enabled: form.enabled.checked }), (form) => `External sends ${form.enabled.checked ? 'allowed' : 'switched off'}.`);
  policyForm('approvals-form', '/api/actions/policy/approvals',
    (form) => ({ highApprovals: Number(form.highApprovals.value), highNeedsOtherApprover: form.highNeedsOtherApprover.checked }),
    (form) => `Approval policy saved: ${form.highApprovals.value} approver(s).`, setApprovalPolicy);
  whenSessionEnded(sessionEnded);
}

async function start() {
  wire();
  let session;
  try {
    session = await loadSession();
  } catch (problem) {
    if (!isSessionEnded(problem)) {
      $('loading').textContent = `The page could not load your session. ${explain(problem)}`;
    }
    return;
  }
  try {
    // The kinds' labels and which can be undone; without them a card shows the kind's id and no Undo.
    setKinds(await get('/api/kinds'));
  } catch (problem) {
    // Cards then name kinds by their ids.
  }
  try {
    // The number of approvers a HIGH action needs, for "1 of 2 approvals" on its card.
    setApprovalPolicy(await get('/api/actions/policy/approvals'));
  } catch (problem) {
    // Cards then say how many approved so far, without "of N".
  }
  $('loading').hidden = true;
  $('who').textContent = `Signed in as ${session.user} (tenant ${session.tenant})`;
  $('who').hidden = false;
  // Sign-out is the server's path on this origin (a link: the server ends the session and signs out at the provider).
  $('sign-out').href = /^\/[^/\\]/.test(session.logoutPath || '') ? session.logoutPath : '/decide/logout';
  $('sign-out').hidden = false;
  session.chatUrl = webUrl(session.chatUrl);
  if (session.chatUrl) {
    $('back-to-chat').href = chatLink(null);
    $('back-to-chat').hidden = false;
  }
  $('app').hidden = false;
  const query = new URLSearchParams(location.search);
  if (query.has('action')) {
    showFocused(query.get('action'));
  }
  switchView(query.get('view') || 'inbox', { fromUrl: true });
}

start();
