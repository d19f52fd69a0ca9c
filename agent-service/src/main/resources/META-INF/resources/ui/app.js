// The Countersign web UI: sign-in, chat (act and plan), proposal cards, pending inbox, activity, trust and policy.

import {
  loadSettings, uiSettings, currentSession, signIn, signOut, devSignIn, whenSignedOut, agent, executor,
  streamMessage, explain, Problem, isSignedOut,
} from './api.js';
import { h, announce, clearAnnouncements, showAlert, clearAlert, formatTime } from './dom.js';
import { actionCard, historyTable, kindLabel, setWalletNames } from './cards.js';
import { planCard } from './plan.js';

const $ = (id) => document.getElementById(id);
let conversationId = null;
let inboxTimer = null;
// Bumped whenever another conversation is opened (or the session ends): a reply, card or load that started under an
// older generation is dropped instead of landing in the conversation now shown.
let generation = 0;
// One turn at a time: Enter or Send while a turn runs does nothing.
let sending = false;

/** Shows an error, unless the session ended: the sign-out said so once already. */
function fail(prefix, problem) {
  if (!isSignedOut(problem)) {
    showAlert(`${prefix} ${explain(problem)}`);
  }
}

// ---- conversations kept in this browser (the ledger has no list of a user's conversations yet) ----

function listKey() {
  const session = currentSession();
  return session ? `countersign.conversations.${session.tenant}/${session.user}` : null;
}

function knownConversations() {
  if (!listKey()) {
    return [];
  }
  try {
    return JSON.parse(localStorage.getItem(listKey())) || [];
  } catch (e) {
    return [];
  }
}

function remember(id, title) {
  if (!listKey()) {
    return;
  }
  const list = knownConversations().filter((entry) => entry.id !== id);
  const previous = knownConversations().find((entry) => entry.id === id);
  list.unshift({ id, title: (previous && previous.title) || title || 'New conversation', at: new Date().toISOString() });
  localStorage.setItem(listKey(), JSON.stringify(list.slice(0, 50)));
  renderConversationList();
}

function renderConversationList() {
  const items = knownConversations().map((entry) => h('li', {},
    h('button', { type: 'button', class: 'conversation', 'aria-current': entry.id === conversationId ? 'true' : null,
      onclick: () => openConversation(entry.id) },
    entry.title, h('span', { class: 'when' }, formatTime(entry.at)))));
  $('conversations').replaceChildren(...(items.length ? items : [h('li', { class: 'hint' }, 'None yet.')]));
}

// ---- chat ----

function message(who, text, extraClass) {
  return h('div', { class: `msg ${extraClass || who.toLowerCase()}` }, h('p', { class: 'who' }, who),
    h('p', { class: 'text' }, text));
}

async function newConversation() {
  clearAlert();
  try {
    const created = await agent('/api/conversations', { method: 'POST' });
    await openConversation(created.conversationId);
    if (currentSession()) {
      $('message').focus();
    }
  } catch (problem) {
    fail('Could not start a conversation.', problem);
  }
}

async function openConversation(id) {
  generation += 1;
  const mine = generation;
  const current = () => mine === generation;
  conversationId = id;
  if (sending) {
    $('progress').textContent = 'The agent is still answering in another conversation; you can send when it is done.';
  }
  history.replaceState(null, '', `#c=${encodeURIComponent(id)}`);
  $('chat-title').textContent = `Conversation ${id}`;
  const log = $('messages');
  log.replaceChildren();
  renderConversationList();
  let view;
  try {
    view = await agent(`/api/conversations/${encodeURIComponent(id)}`);
  } catch (problem) {
    if (!current()) {
      return;
    }
    if (problem.code !== 'not_found') {
      fail('Could not load this conversation.', problem);
    }
    log.append(h('p', { class: 'hint' }, 'Nothing said yet. Ask the agent below.'));
    return;
  }
  if (!current()) {
    return;
  }
  for (const turn of view.turns) {
    log.append(message('You', turn.userText));
    if (turn.mode === 'plan') {
      let deliverable = null;
      try {
        deliverable = await agent(`/api/conversations/${encodeURIComponent(id)}/plans/${turn.turnId}`);
      } catch (problem) {
        deliverable = null;
      }
      if (!current()) {
        return;
      }
      log.append(planCard(id, turn.turnId, deliverable));
    } else {
      log.append(message('Agent', turn.reply));
      for (const proposal of turn.proposals) {
        log.append(actionCard(proposal));
      }
    }
  }
}

async function send(event) {
  event.preventDefault();
  if (sending) {
    return;
  }
  clearAlert();
  const text = $('message').value.trim();
  const mode = $('composer').querySelector('input[name=mode]:checked').value;
  if (!text) {
    showAlert('Type a message first.');
    $('message').focus();
    return;
  }
  sending = true;
  $('send').disabled = true;
  if (!conversationId) {
    try {
      const before = generation;
      const created = (await agent('/api/conversations', { method: 'POST' })).conversationId;
      if (before !== generation) {
        // Another conversation was opened meanwhile: the message was not sent; keep it in the box.
        sending = false;
        $('send').disabled = false;
        return;
      }
      conversationId = created;
      generation += 1;
      history.replaceState(null, '', `#c=${encodeURIComponent(conversationId)}`);
      $('messages').replaceChildren();
    } catch (problem) {
      fail('Could not start a conversation.', problem);
      sending = false;
      $('send').disabled = false;
      return;
    }
  }
  const id = conversationId;
  const mine = generation;
  const current = () => mine === generation;
  remember(id, text.slice(0, 60));
  const log = $('messages');
  log.querySelectorAll(':scope > .hint').forEach((hint) => hint.remove());
  log.append(message('You', text));
  $('message').value = '';
  const progress = $('progress');
  progress.textContent = mode === 'plan' ? 'The agent is drafting a statement…' : 'The agent is working…';
  const shown = new Set();
  try {
    await streamMessage(id, text, mode, (name, data) => {
      if (!current()) {
        // The person opened another conversation: this turn's reply and cards stay in its own record.
        return;
      }
      if (name === 'tool') {
        progress.textContent = `The agent used ${data.tool}…`;
      } else if (name === 'proposal') {
        shown.add(data.actionId);
        log.append(actionCard(data));
        announce(`New proposal to decide: ${data.summary}`);
      } else if (name === 'reply') {
        if (data.mode === 'plan' || data.verdict) {
          log.append(planCard(id, data.turnId, data.deliverable));
          announce(data.verdict === 'statement' ? 'The agent drafted a statement.'
            : data.verdict === 'refusal' ? 'The agent declined to draft a statement.' : 'The agent gave no usable answer.');
        } else {
          log.append(message('Agent', data.reply));
          for (const proposal of data.proposals || []) {
            if (!shown.has(proposal.actionId)) {
              log.append(actionCard(proposal));
            }
          }
          announce('The agent replied.');
        }
        if (data.recorded === false) {
          log.append(h('p', { class: 'hint' }, 'This turn was not in the conversation record yet; a reload may not show it at once.'));
        }
      } else if (name === 'problem') {
        const problem = new Problem(data.status || 500, data);
        log.append(message('Problem', explain(problem), 'problem'));
        announce(`Problem: ${explain(problem)}`);
      }
    });
  } catch (problem) {
    if (!isSignedOut(problem) && current()) {
      const why = problem instanceof Problem ? explain(problem) : `${problem.message} Try again.`;
      log.append(message('Problem', why, 'problem'));
      showAlert(`The message was not answered. ${why}`);
    }
  } finally {
    sending = false;
    progress.textContent = '';
    $('send').disabled = false;
    if (currentSession()) {
      refreshInboxCount();
    }
  }
}

// ---- pending inbox, activity, trust and policy ----

async function refreshInboxCount() {
  try {
    const page = await executor('/api/actions?status=proposed&limit=100');
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
  if (!currentSession()) {
    return;
  }
  if (page === null) {
    inbox.replaceChildren(h('p', { class: 'card-error' }, 'Could not load pending decisions. Check that executor-service '
      + 'is running, then press Refresh.'));
    return;
  }
  inbox.replaceChildren(...(page.items.length === 0 ? [h('p', {}, 'Nothing waits for a decision.')]
    : page.items.map((item) => h('div', { class: 'inbox-item' },
      item.conversationId ? h('p', { class: 'hint' }, 'From conversation ',
        h('button', { type: 'button', class: 'link', onclick: () => { switchView('chat'); openConversation(item.conversationId); } },
          item.conversationId)) : null,
      actionCard({ actionId: item.id, kind: item.kind, summary: item.summary, paramsHash: item.paramsHash })))));
}

async function showActivity() {
  const area = $('activity');
  area.replaceChildren(h('p', { role: 'status' }, 'Loading…'));
  let page;
  try {
    page = await executor('/api/actions?limit=30');
  } catch (problem) {
    if (!isSignedOut(problem)) {
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
      h('td', {}, formatTime(item.proposedAt)), h('td', {}, kindLabel(item.kind)), h('td', {}, item.summary),
      h('td', {}, item.tier), h('td', {}, item.status + (item.autoApplied ? ' (applied on arrival)' : '')),
      h('td', {}, item.requestedBy),
      h('td', {}, h('button', { type: 'button', 'aria-label': `History of: ${item.summary}`,
        onclick: async () => {
          try {
            detail.replaceChildren(h('h3', { tabindex: '-1' }, item.summary),
              historyTable(await executor(`/api/actions/${item.id}/history`)));
            detail.querySelector('h3').focus();
          } catch (problem) {
            if (!isSignedOut(problem)) {
              detail.replaceChildren(h('p', { class: 'card-error' }, explain(problem)));
            }
          }
        } }, 'History')))))), detail);
}

async function showSettings() {
  const session = currentSession();
  const admin = session.groups.includes('admin');
  $('admin-hint').textContent = admin ? 'You are an administrator of your tenant: changes apply to everyone in it and are audited.'
    : 'Only administrators can change these settings; ask one of your tenant if they need to change.';
  for (const form of ['agent-writes-form', 'external-sends-form', 'approvals-form']) {
    $(form).querySelectorAll('input, button').forEach((control) => { control.disabled = !admin; });
  }
  try {
    const trust = await executor('/api/actions/trust');
    $('trust').textContent = `${trust.mediumConfirmedInARow} of ${trust.needed} medium-impact actions confirmed in a row. `
      + (trust.mediumAutoApplies ? 'Medium-impact actions now apply on arrival (while agent writes are enabled).'
        : 'Medium-impact actions wait for a person.')
      + (trust.resetBecause ? ` Last reset: ${trust.resetBecause} (${formatTime(trust.resetAt)}).` : '');
    const writes = await executor('/api/actions/policy/agent-writes');
    const radio = $('agent-writes-form').querySelector(`input[value="${writes.mode}"]`);
    if (radio) {
      radio.checked = true;
    }
    const sends = await executor('/api/actions/policy/external-sends');
    $('external-sends-form').elements.enabled.checked = sends.enabled;
    const approvals = await executor('/api/actions/policy/approvals');
    $('approvals-form').elements.highApprovals.value = approvals.highApprovals;
    $('approvals-form').elements.highNeedsOtherApprover.checked = approvals.highNeedsOtherApprover;
  } catch (problem) {
    fail('Could not load trust and policy.', problem);
  }
}

function policyForm(formId, path, bodyOf, saidOf) {
  $(formId).addEventListener('submit', async (event) => {
    event.preventDefault();
    clearAlert();
    try {
      await executor(path, { method: 'PUT', body: bodyOf($(formId).elements) });
      announce(saidOf($(formId).elements));
    } catch (problem) {
      fail('Not saved.', problem);
    }
  });
}

// ---- shell ----

function switchView(name) {
  for (const button of document.querySelectorAll('nav [data-view]')) {
    button.setAttribute('aria-current', button.dataset.view === name ? 'page' : 'false');
  }
  for (const view of ['chat', 'inbox', 'activity', 'settings']) {
    $(`view-${view}`).hidden = view !== name;
  }
  clearInterval(inboxTimer);
  if (name === 'inbox') {
    showInbox();
    // Cards poll their own status; the count in the tab is refreshed, Refresh reloads the list.
    inboxTimer = setInterval(refreshInboxCount, 10000);
  } else if (name === 'activity') {
    showActivity();
  } else if (name === 'settings') {
    showSettings();
  }
}

function showSignIn(reason) {
  $('app').hidden = true;
  $('who').hidden = true;
  $('sign-out').hidden = true;
  $('signin').hidden = false;
  const dev = Boolean(uiSettings().devTokenUrl);
  $('dev-signin').hidden = !dev;
  $('bearer-signin').hidden = dev;
  if (reason) {
    showAlert(reason);
  }
  (dev ? $('tenant') : $('agent-token')).focus();
}

/**
 * Ends the session once (the sign-out button or the first 401): its requests and card timers stop with the session's
 * signal (api.js), the inbox poll stops, pasted tokens and the conversation leave the page, the sign-in form shows.
 */
function endSession(reason, { keepConversationInUrl = false } = {}) {
  signOut();
  generation += 1;
  clearInterval(inboxTimer);
  inboxTimer = null;
  clearAnnouncements();
  conversationId = null;
  $('agent-token').value = '';
  $('executor-token').value = '';
  $('message').value = '';
  $('progress').textContent = '';
  $('chat-title').textContent = 'Conversation';
  for (const area of ['messages', 'conversations', 'inbox', 'activity']) {
    $(area).replaceChildren();
  }
  $('inbox-count').textContent = '';
  if (!keepConversationInUrl) {
    history.replaceState(null, '', '#');
  }
  clearAlert();
  showSignIn(reason);
}

async function showApp() {
  const session = currentSession();
  $('signin').hidden = true;
  $('app').hidden = false;
  $('who').hidden = false;
  $('who').textContent = `Signed in as ${session.user} (tenant ${session.tenant})`;
  $('sign-out').hidden = false;
  switchView('chat');
  renderConversationList();
  refreshInboxCount();
  try {
    setWalletNames(await agent('/api/wallets'));
  } catch (problem) {
    // Cards then show wallet ids only; everything else works.
  }
  if (!currentSession()) {
    return;
  }
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('c');
  const first = fromHash || (knownConversations()[0] && knownConversations()[0].id);
  if (first) {
    await openConversation(first);
  } else {
    $('messages').replaceChildren(h('p', { class: 'hint' }, 'Ask the agent something, for example “add a 620 rent '
      + 'expense to Checking”. It proposes; you confirm.'));
  }
}

function wire() {
  $('dev-signin').addEventListener('submit', async (event) => {
    event.preventDefault();
    clearAlert();
    try {
      await devSignIn($('tenant').value.trim(), $('user').value.trim());
      await showApp();
      if (currentSession()) {
        $('message').focus();
      }
    } catch (problem) {
      // Not fail(): a 401 here is the token endpoint refusing, not a session ending.
      showAlert(`Sign-in failed. ${explain(problem)}`);
    }
  });
  $('bearer-signin').addEventListener('submit', async (event) => {
    event.preventDefault();
    clearAlert();
    signIn($('agent-token').value, $('executor-token').value);
    // The tokens now live in sessionStorage only; the form does not keep them.
    $('agent-token').value = '';
    $('executor-token').value = '';
    await showApp();
  });
  $('sign-out').addEventListener('click', () => endSession());
  // The skip link moves focus by script, so the URL keeps naming the open conversation (#c=<id>).
  document.querySelector('a.skip').addEventListener('click', (event) => {
    event.preventDefault();
    $('main').focus();
  });
  for (const button of document.querySelectorAll('nav [data-view]')) {
    button.addEventListener('click', () => switchView(button.dataset.view));
  }
  $('composer').addEventListener('submit', send);
  $('message').addEventListener('keydown', (event) => {
    // Enter sends, Shift+Enter starts a new line.
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $('composer').requestSubmit();
    }
  });
  $('new-conversation').addEventListener('click', newConversation);
  $('inbox-refresh').addEventListener('click', showInbox);
  $('activity-refresh').addEventListener('click', showActivity);
  policyForm('agent-writes-form', '/api/actions/policy/agent-writes',
    (form) => ({ mode: form.agentWrites.value }), (form) => `Agent writes saved: ${form.agentWrites.value}.`);
  policyForm('external-sends-form', '/api/actions/policy/external-sends',
    (form) => ({ enabled: form.enabled.checked }), (form) => `External sends ${form.enabled.checked ? 'allowed' : 'switched off'}.`);
  policyForm('approvals-form', '/api/actions/policy/approvals',
    (form) => ({ highApprovals: Number(form.highApprovals.value), highNeedsOtherApprover: form.highNeedsOtherApprover.checked }),
    (form) => `Approval policy saved: ${form.highApprovals.value} approver(s).`);
  // api.js calls this once per session, on its first 401; later failures of that session stay silent.
  whenSignedOut(() => endSession('Your sign-in expired or was not accepted: sign in again.',
    { keepConversationInUrl: true }));
}

async function start() {
  wire();
  try {
    await loadSettings();
  } catch (problem) {
    $('loading').textContent = 'The page could not load its settings from agent-service. Reload in a moment.';
    return;
  }
  $('loading').hidden = true;
  const session = currentSession();
  if (session && (!session.expiresAt || session.expiresAt > Date.now())) {
    await showApp();
  } else {
    showSignIn();
  }
}

start();
