// The approval device's page (dev and tests): the requests the identity provider sent the signed-in person, each with
// its code and the action as the executor shows it; Approve and Deny answer the identity provider through the device.
// Builds elements from text only (never innerHTML): nothing an agent or a person wrote can become markup.

const POLL_MS = 2000;
const CSRF = { 'X-Requested-With': 'countersign-approval-device' };
const list = document.getElementById('requests');
const none = document.getElementById('none');
const error = document.getElementById('error');
const status = document.getElementById('status');
let shown = '';
let busy = false;

function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'text') {
      element.textContent = value;
    } else if (value !== null && value !== undefined && value !== false) {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) {
      element.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return element;
}

function showError(message) {
  error.textContent = message;
  error.hidden = !message;
}

/** A value as a person reads it: text as it is, anything else as JSON, nothing as a dash. */
function readable(value) {
  if (value === null || value === undefined) {
    return '—';
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function changes(action) {
  const rows = (action.diff || []).map(change => h('tr', {},
    h('th', { scope: 'row', text: change.field }),
    h('td', { text: readable(change.before) }),
    h('td', { text: readable(change.after) })));
  if (rows.length === 0) {
    const params = action.params || {};
    Object.keys(params).forEach(name => rows.push(h('tr', {}, h('th', { scope: 'row', text: name }),
      h('td', { text: readable(params[name]) }))));
  }
  return rows.length === 0 ? null : h('table', {}, h('caption', { class: 'visually-hidden', text: 'What it changes' }),
    h('tbody', {}, rows));
}

function card(request) {
  const vouched = request.action && request.action.action;
  const action = vouched ? request.action.action : null;
  const item = h('li', { class: 'request', 'data-code': request.code },
    h('p', { class: 'code' }, 'Code ', h('strong', { text: request.code })),
    action
      ? [h('p', { class: 'headline', text: action.headline || action.kind }),
        h('p', { text: `Tier ${String(action.tier).toLowerCase()}, asked by ${action.requestedBy}` }),
        changes(action)]
      : h('p', { class: 'unknown', text: 'The executor knows no action waiting for you with this code: it was not'
        + ' meant for you, or it is over. Dismiss it.' }),
    h('p', { class: 'hint', text: `Answer before ${new Date(request.expiresAt).toLocaleTimeString()}.` }),
    h('div', { class: 'answers' },
      action ? h('button', { type: 'button', class: 'approve', onclick: () => answer(request, 'approve') },
        'Approve') : null,
      action ? h('button', { type: 'button', class: 'deny', onclick: () => answer(request, 'deny') }, 'Deny')
        : h('button', { type: 'button', onclick: () => answer(request, 'dismiss') }, 'Dismiss')));
  return item;
}

async function answer(request, what) {
  busy = true;
  list.querySelectorAll('button').forEach(button => { button.disabled = true; });
  try {
    const response = await fetch(`/api/requests/${encodeURIComponent(request.id)}/${what}`,
      { method: 'POST', headers: CSRF, credentials: 'same-origin' });
    if (response.status === 204) {
      status.textContent = { approve: 'Approved', deny: 'Denied', dismiss: 'Dismissed' }[what] + ` ${request.code}`;
      showError('');
    } else if (response.status === 409) {
      showError('The executor no longer vouches for this request: it can only be dismissed.');
    } else {
      showError(`The answer was not delivered (HTTP ${response.status}); try again.`);
    }
  } catch (e) {
    showError('The device could not be reached; try again.');
  } finally {
    busy = false;
    shown = '';
    refresh();
  }
}

async function refresh() {
  if (busy) {
    return;
  }
  try {
    const response = await fetch('/api/requests', { credentials: 'same-origin' });
    if (response.status === 499 || response.status === 401) {
      window.location.reload();
      return;
    }
    const requests = await response.json();
    const fingerprint = JSON.stringify(requests);
    if (fingerprint !== shown) {
      shown = fingerprint;
      list.replaceChildren(...requests.map(card));
      none.hidden = requests.length > 0;
    }
  } catch (e) {
    showError('The device could not be reached; retrying.');
  }
}

async function start() {
  const me = await fetch('/api/me', { credentials: 'same-origin' }).then(r => r.json()).catch(() => null);
  if (me) {
    document.getElementById('who').textContent = `Signed in as ${me.username}`;
  }
  refresh();
  setInterval(refresh, POLL_MS);
}

start();
