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

let announceTimer = null;

/** Tells screen readers about a status change (the polite live region), once. */
export function announce(message) {
  const region = document.getElementById('announcer');
  region.textContent = '';
  clearTimeout(announceTimer);
  // A fresh text node after a tick makes repeated messages announced again.
  announceTimer = setTimeout(() => { region.textContent = message; }, 50);
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
