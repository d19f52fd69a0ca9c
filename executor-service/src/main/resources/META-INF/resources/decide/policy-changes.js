// Changes of the tenant's policy that weaken protection wait for a second administrator
// (docs/security/authorization.md, "Two persons for loosening"). This lists them for administrators, each with
// Confirm (not offered to its own proposer, whom the executor refuses, unless an operator's break-glass exempted it)
// and Reject (its proposer may withdraw it).

import { get, post, currentSession, inGroup, explain, isSessionEnded } from './api.js';
import { h, announce, showAlert, clearAlert, formatTime } from '/shared/dom.js';

const $ = (id) => document.getElementById(id);

/** Shows the pending changes to an administrator; {@code refresh} reloads the settings after one was decided. */
export async function showPolicyChanges(refresh) {
  const area = $('policy-changes');
  if (!inGroup('admin')) {
    area.hidden = true;
    return;
  }
  area.hidden = false;
  const changes = await get('/api/actions/policy/changes');
  $('policy-changes-list').replaceChildren(...(changes.length === 0
    ? [h('li', {}, 'None.')]
    : changes.map((change) => item(change, refresh))));
}

/** "agent-writes: mode enabled", the value's fields that are set. */
function describe(change) {
  const fields = Object.entries(change.value).filter(([, value]) => value !== null)
    .map(([name, value]) => `${name} ${value}`);
  return `${change.setting}: ${fields.join(', ')}`;
}

function item(change, refresh) {
  const mine = change.proposedBy === currentSession().user && !change.breakGlassBy;
  const decide = (decision, said) => async () => {
    clearAlert();
    try {
      await post(`/api/actions/policy/changes/${change.id}/${decision}`);
      announce(`${said}: ${describe(change)}.`);
    } catch (problem) {
      if (!isSessionEnded(problem)) {
        showAlert(`Not ${decision}ed. ${explain(problem)}`);
      }
    }
    await refresh();
  };
  return h('li', { 'data-change-id': change.id },
    h('span', {}, `${describe(change)}, proposed by ${change.proposedBy} at ${formatTime(change.proposedAt)}`
      + (change.breakGlassBy ? ` (exempted by ${change.breakGlassBy})` : '')
      + (mine ? '; another administrator must confirm it.' : '.')),
    mine ? null : h('button', { type: 'button', onclick: decide('confirm', 'Applied') }, 'Confirm change'),
    h('button', { type: 'button', onclick: decide('reject', 'Rejected') }, mine ? 'Withdraw' : 'Reject'));
}
