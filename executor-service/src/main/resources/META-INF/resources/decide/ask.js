// A second step before a change that cannot be taken back from this page (committing a plan archives the active one;
// rejecting imported rows removes them from the books): the question in words, the change's own button, and a way out.
// Focus moves to the question, and back to where it came from when the person declines.

import { h } from '/shared/dom.js';

/**
 * Shows {@code question} in {@code area} with a button named {@code yes} that runs {@code onYes} (once: it is disabled
 * while the change runs) and a button named {@code no}. Answers nothing; {@code area} is emptied either way.
 */
export function askFirst(area, { question, yes, no, returnFocusTo, onYes }) {
  const text = h('p', { class: 'ask-question', tabindex: '-1' }, question);
  const close = () => {
    area.replaceChildren();
    area.hidden = true;
  };
  const yesButton = h('button', { type: 'button', class: 'confirm', onclick: async () => {
    yesButton.disabled = true;
    try {
      await onYes();
    } finally {
      close();
    }
  } }, yes);
  const noButton = h('button', { type: 'button', onclick: () => {
    close();
    if (returnFocusTo) {
      returnFocusTo.focus();
    }
  } }, no);
  area.replaceChildren(text, h('div', { class: 'buttons' }, yesButton, noButton));
  area.hidden = false;
  text.focus();
}
