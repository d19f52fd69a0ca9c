// The Countersign chat: sign-in, conversations (act and plan), read-only proposal cards. Decisions (confirm, cancel,
// undo), the pending inbox, activity and trust and policy live on the decision page (/decide/, its own origin), linked
// to from here.

import {
  loadSettings, loadServerSession, uiSettings, currentSession, signIn, signOut, devSignIn, whenSignedOut, agent,
  streamMessage, explain, Problem, isSignedOut, decisionPageUrl,
} from './api.js';
import { h, announce, clearAnnouncements, showAlert, clearAlert, formatTime } from '/shared/dom.js';
import { actionCard, setWalletNames, trackConversation } from './cards.js';
import { planCard } from './plan.js';

const $ = (id) => document.getElementById(id);
let conversationId = null;
// Bumped whenever another conversation is opened (or the session ends): a reply, card or load that started under an
// older generation is dropped instead of landing in the conversation now shown.
let generation = 0;
// One turn at a time: Enter or Send while a turn runs does nothing.
let sending = false;
// New conversations being created: Send waits for them. A message sent before the new conversation is open would go
// to the one being left, and its reply would be dropped when the new one opens (the text would seem lost).
let opening = 0;

function updateSendButton() {
  $('send').disabled = sending || opening > 0;
}

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
  opening += 1;
  updateSendButton();
  try {
    const created = await agent('/api/conversations', { method: 'POST' });
    await openConversation(created.conversationId);
    if (currentSession()) {
      $('message').focus();
    }
  } catch (problem) {
    fail('Could not start a conversation.', problem);
  } finally {
    opening -= 1;
    updateSendButton();
  }
}

async function openConversation(id) {
  generation += 1;
  const mine = generation;
  const current = () => mine === generation;
  conversationId = id;
  trackConversation(id);
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
  if (sending || opening > 0) {
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
  updateSendButton();
  if (!conversationId) {
    try {
      const before = generation;
      const created = (await agent('/api/conversations', { method: 'POST' })).conversationId;
      if (before !== generation) {
        // Another conversation was opened meanwhile: the message was not sent; keep it in the box.
        sending = false;
        updateSendButton();
        return;
      }
      conversationId = created;
      generation += 1;
      trackConversation(created);
      history.replaceState(null, '', `#c=${encodeURIComponent(conversationId)}`);
      $('messages').replaceChildren();
    } catch (problem) {
      fail('Could not start a conversation.', problem);
      sending = false;
      updateSendButton();
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
        announce(`New proposal to review and decide on the decision page: ${data.summary}`);
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
    updateSendButton();
  }
}

// ---- shell ----

function showSignIn(reason) {
  $('app').hidden = true;
  $('who').hidden = true;
  $('sign-out').hidden = true;
  $('pending-link').hidden = true;
  $('signin').hidden = false;
  if (uiSettings().session) {
    // The server signs people in: a new sign-in is a new visit of this page, which comes back to it.
    for (const form of ['dev-signin', 'bearer-signin']) {
      $(form).hidden = true;
    }
    $('sign-in-again').href = location.href;
    $('session-signin').hidden = false;
    $('signin-title').textContent = 'Your session ended';
    $('signin-title').focus();
    return;
  }
  const dev = Boolean(uiSettings().devTokenUrl);
  $('dev-signin').hidden = !dev;
  $('bearer-signin').hidden = dev;
  if (reason) {
    showAlert(reason);
  }
  (dev ? $('tenant') : $('agent-token')).focus();
}

/**
 * Ends the session once (the sign-out button or the first 401): its requests and the cards' poll stop with the
 * session's signal (api.js), the pasted token and the conversation leave the page, the sign-in form shows.
 */
function endSession(reason, { keepConversationInUrl = false } = {}) {
  signOut();
  generation += 1;
  trackConversation(null);
  clearAnnouncements();
  conversationId = null;
  $('agent-token').value = '';
  $('message').value = '';
  $('progress').textContent = '';
  $('chat-title').textContent = 'Conversation';
  for (const area of ['messages', 'conversations']) {
    $(area).replaceChildren();
  }
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
  $('pending-link').hidden = false;
  renderConversationList();
  // The person may open or start a conversation while the wallets load (the buttons show at once): then that one
  // stays open. Opening the hash's conversation afterwards would wipe a message they already sent there.
  const before = generation;
  try {
    setWalletNames(await agent('/api/wallets'));
  } catch (problem) {
    // Cards then show wallet ids only; everything else works.
  }
  if (!currentSession() || generation !== before) {
    return;
  }
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('c');
  const first = fromHash || (knownConversations()[0] && knownConversations()[0].id);
  if (first) {
    await openConversation(first);
  } else {
    $('messages').replaceChildren(h('p', { class: 'hint' }, 'Ask the agent something, for example “add a 620 rent '
      + 'expense to Checking”. It proposes; you review and decide on the decision page.'));
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
    signIn($('agent-token').value);
    // The token now lives in sessionStorage only; the form does not keep it.
    $('agent-token').value = '';
    await showApp();
  });
  $('sign-out').addEventListener('click', () => {
    const server = uiSettings().session && currentSession();
    // Session mode: the server's logout path ends the session here and at the identity provider.
    const logoutPath = server && /^\/[^/\\]/.test(server.logoutPath || '') ? server.logoutPath : null;
    endSession();
    if (logoutPath) {
      location.assign(logoutPath);
    }
  });
  // The skip link moves focus by script, so the URL keeps naming the open conversation (#c=<id>).
  document.querySelector('a.skip').addEventListener('click', (event) => {
    event.preventDefault();
    $('main').focus();
  });
  $('composer').addEventListener('submit', send);
  $('message').addEventListener('keydown', (event) => {
    // Enter sends, Shift+Enter starts a new line.
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $('composer').requestSubmit();
    }
  });
  $('new-conversation').addEventListener('click', newConversation);
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
  // A link to the decision page (navigation, not a fetch): the pending decisions of the tenant.
  $('pending-link').href = decisionPageUrl(null);
  if (uiSettings().session) {
    try {
      await loadServerSession();
    } catch (problem) {
      if (!isSignedOut(problem)) {
        $('loading').hidden = false;
        $('loading').textContent = `The page could not load your session. ${explain(problem)}`;
      }
      return;
    }
    await showApp();
    return;
  }
  const session = currentSession();
  if (session && (!session.expiresAt || session.expiresAt > Date.now())) {
    await showApp();
  } else {
    showSignIn();
  }
}

start();
