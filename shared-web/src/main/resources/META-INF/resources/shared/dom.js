// The DOM helpers of both pages (the chat, agent-service; the decision page, executor-service), one file in
// shared-web's jar, served by each service at /shared/dom.js on its own origin (scripts stay same-origin: CSP
// script-src 'self').
//
// Builds elements from text only (never innerHTML), so nothing a model, a user or a service wrote can become markup.

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) {
      continue;
    }
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'text') {
      element.textContent = value;
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// Announcements wait their turn: a new one never replaces one that was not read yet.
const announcements = [];
let announcing = false;
const ANNOUNCE_GAP_MS = 1000;

/** Tells screen readers about a status change (the polite live region), once, after the ones already queued. */
export function announce(message) {
  if (announcements[announcements.length - 1] === message) {
    return;
  }
  announcements.push(message);
  if (!announcing) {
    nextAnnouncement();
  }
}

function nextAnnouncement() {
  const region = document.getElementById('announcer');
  const message = announcements.shift();
  if (message === undefined) {
    announcing = false;
    return;
  }
  announcing = true;
  region.textContent = '';
  // A fresh text node after a tick makes a repeated message announced again.
  setTimeout(() => {
    region.textContent = message;
    setTimeout(nextAnnouncement, ANNOUNCE_GAP_MS);
  }, 50);
}

/** Forgets announcements not made yet (sign-out). */
export function clearAnnouncements() {
  announcements.length = 0;
}

/** Shows an error with what to do next at the top of the page (role=alert). */
export function showAlert(message) {
  const alert = document.getElementById('alert');
  alert.textContent = message;
  alert.hidden = false;
}

export function clearAlert() {
  const alert = document.getElementById('alert');
  alert.textContent = '';
  alert.hidden = true;
}

let ids = 0;

export function uniqueId(prefix) {
  ids += 1;
  return `${prefix}-${ids}`;
}

export function formatTime(iso) {
  if (!iso) {
    return '';
  }
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}
