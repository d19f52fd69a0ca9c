// Import review on the decision page: the tenant's imported rows (bank or receipt files) that no person confirmed yet,
// selectable one by one or all at once, confirmed or rejected in bulk. Until a person confirms a row the agent's reads
// leave it out. Confirming follows the tenant's tiers and approval policy (a HIGH row may need more approvers, or one
// other than its importer); rejecting takes the rows out of the books and is asked twice.

import { get, post, explain, isSessionEnded } from './api.js';
import { h, announce } from '/shared/dom.js';
import { askFirst } from './ask.js';

const $ = (id) => document.getElementById(id);

function rowLabel(row) {
  return `${row.occurredOn} ${row.amount} ${row.category}${row.description ? ` (${row.description})` : ''}`;
}

function tierCell(row) {
  const tier = (row.tier || '').toUpperCase();
  const approvals = row.approvers && row.approvers.length
    ? ` · approved so far by ${row.approvers.join(', ')}` : '';
  return h('td', {}, h('span', { class: `tier tier-${(row.tier || '').toLowerCase()}` }, tier), approvals);
}

function plural(count, one, many) {
  return `${count} ${count === 1 ? one : many}`;
}

export async function showImports() {
  const area = $('imports');
  area.replaceChildren(h('p', { role: 'status' }, 'Loading…'));
  let rows;
  try {
    rows = await get('/api/actions/imports');
  } catch (problem) {
    if (!isSessionEnded(problem)) {
      area.replaceChildren(h('p', { class: 'card-error' }, `Could not load the imported rows. ${explain(problem)}`));
    }
    return;
  }
  if (rows.length === 0) {
    area.replaceChildren(h('p', {}, 'No imported row waits for review.'));
    return;
  }
  const boxes = rows.map((row) => h('input', { type: 'checkbox', 'data-transaction-id': row.id,
    'aria-label': `Select ${rowLabel(row)}`, onchange: () => selectionChanged() }));
  const all = h('input', { type: 'checkbox', 'aria-label': 'Select all rows', onchange: () => {
    boxes.forEach((box) => { box.checked = all.checked; });
    selectionChanged();
  } });
  const count = h('span', { class: 'selected-count', role: 'status' });
  const ask = h('div', { class: 'ask', hidden: true });
  const selected = () => boxes.filter((box) => box.checked).map((box) => box.dataset.transactionId);
  const confirm = h('button', { type: 'button', class: 'confirm', onclick: () => decide('confirm', selected()) },
    'Confirm selected');
  const reject = h('button', { type: 'button', onclick: () => {
    const ids = selected();
    askFirst(ask, {
      question: `Reject ${plural(ids.length, 'row', 'rows')}? They leave the books; the trail keeps who rejected`
        + ' them. This cannot be undone here.',
      yes: `Reject ${plural(ids.length, 'row', 'rows')}`,
      no: 'Keep them',
      returnFocusTo: reject,
      onYes: () => decide('reject', ids),
    });
  } }, 'Reject selected…');

  function selectionChanged() {
    const chosen = selected().length;
    all.checked = chosen === boxes.length;
    all.indeterminate = chosen > 0 && chosen < boxes.length;
    count.textContent = `${plural(chosen, 'row', 'rows')} selected`;
    confirm.disabled = chosen === 0;
    reject.disabled = chosen === 0;
  }

  area.replaceChildren(h('table', { class: 'imports-table' },
    h('caption', {}, `${plural(rows.length, 'row waits', 'rows wait')} for review, oldest first`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, all),
      ['Date', 'Amount', 'Category', 'Description', 'Wallet', 'Imported by', 'Tier']
        .map((name) => h('th', { scope: 'col' }, name)))),
    h('tbody', {}, rows.map((row, index) => h('tr', { 'data-transaction-id': row.id },
      h('td', {}, boxes[index]), h('td', {}, row.occurredOn), h('td', { class: 'amount' }, row.amount),
      h('td', {}, row.category), h('td', {}, row.description || '—'), h('td', {}, row.walletName),
      h('td', {}, row.importedBy), tierCell(row))))),
  h('div', { class: 'buttons' }, confirm, reject, count), ask);
  selectionChanged();
}

async function decide(what, ids) {
  try {
    const { body: done } = await post(`/api/actions/imports/${what}`, { transactionIds: ids });
    const waiting = ids.length - done;
    if (what === 'confirm') {
      announce(`Confirmed ${plural(done, 'row', 'rows')}.` + (waiting > 0 ? ` ${plural(waiting, 'row', 'rows')} `
        + 'recorded your approval and wait for more approvers, or had been handled already.' : ''));
    } else {
      announce(`Rejected ${plural(done, 'row', 'rows')}.`
        + (waiting > 0 ? ` ${plural(waiting, 'row was', 'rows were')} handled already.` : ''));
    }
    await showImports();
  } catch (problem) {
    if (isSessionEnded(problem)) {
      return;
    }
    const which = problem.violations && problem.violations.length
      ? ` (${problem.violations.map((violation) => `${violation.field}: ${violation.message}`).join('; ')})` : '';
    $('imports').prepend(h('p', { class: 'card-error', role: 'alert' },
      `Nothing was ${what === 'confirm' ? 'confirmed' : 'rejected'}. ${explain(problem)}${which}`));
  }
}
