// Plan mode: the recorded deliverable as a card (statement, refusal or shortfall). The model's raw text, with its
// fence and protocol marker, is never shown: only what the server's reader took from it.

import { agent, explain } from './api.js';
import { h, announce, uniqueId } from '/shared/dom.js';

const PAGE_SIZE = 20;

export function planCard(conversationId, turnId, deliverable) {
  const titleId = uniqueId('plan-title');
  switch (deliverable && deliverable.type) {
    case 'PlanStatementDrafted': return statementCard(conversationId, turnId, deliverable, titleId);
    case 'PlanRefused': return h('article', { class: 'card plan refusal', 'aria-labelledby': titleId },
      h('h3', { id: titleId }, 'No statement drafted'),
      h('p', {}, 'The agent declined to write a statement. What it says is missing:'),
      h('blockquote', { class: 'missing' }, deliverable.missing),
      deliverable.question ? h('p', { class: 'question' }, h('strong', {}, 'Its question: '), deliverable.question) : null,
      h('p', { class: 'hint' }, 'Answer the question or rephrase, then send again in Plan mode.'));
    case 'PlanFellShort': return h('article', { class: 'card plan shortfall', 'aria-labelledby': titleId },
      h('h3', { id: titleId }, 'Neither a statement nor a refusal'),
      h('p', {}, shortfallText(deliverable.reason)),
      sanitizedReason(deliverable.reason) ? h('p', { class: 'hint reason' }, 'Details: ', sanitizedReason(deliverable.reason))
        : null,
      h('p', { class: 'hint' }, 'Nothing was recorded as a statement. Ask again, more specifically.'));
    default: return h('article', { class: 'card plan', 'aria-labelledby': titleId },
      h('h3', { id: titleId }, 'Plan result not available'),
      h('p', {}, 'The deliverable of this turn was not found in the ledger yet. Reload in a moment.'));
  }
}

/** Plain words for the reader's shortfall reasons; the reasons name the protocol, which a person need not know. */
export function shortfallText(reason) {
  const text = reason || '';
  if (/fences are tagged postgresql/i.test(text)) {
    return 'The assistant drafted more than one statement; a plan holds exactly one.';
  }
  if (/bare NO STATEMENT/i.test(text)) {
    return 'The assistant declined without saying what is missing.';
  }
  if (/fence tagged/i.test(text)) {
    return 'The assistant wrote a statement for another database, not PostgreSQL.';
  }
  if (/fence without the postgresql tag/i.test(text)) {
    return 'The assistant wrote a statement without marking it as PostgreSQL, so it was not taken as the plan.';
  }
  return 'The assistant gave neither a runnable statement nor a clear refusal.';
}

/** The server's reason without the protocol marker or fences, so neither ever shows on the page. */
export function sanitizedReason(reason) {
  return (reason || '')
    .replace(/NO STATEMENT:?/gi, '')
    .replace(/`{3,}|~{3,}/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function statementCard(conversationId, turnId, statement, titleId) {
  const guard = statement.guard || {};
  const validation = statement.validation || {};
  const unknown = [...(validation.unknownTables || []), ...(validation.unknownColumns || [])];
  const runnable = guard.singleSelect === true && (validation.unknownTables || []).length === 0;
  const sqlId = uniqueId('sql');
  const copyStatus = h('span', { class: 'copy-status', role: 'status' });
  const results = h('div', { class: 'results' });
  const error = h('p', { class: 'card-error', role: 'alert', hidden: true });
  const runButton = h('button', { type: 'button', class: 'run', disabled: !runnable, onclick: () => run(0) },
    'Run read-only');

  async function copy() {
    try {
      await navigator.clipboard.writeText(statement.sql);
      copyStatus.textContent = 'Copied.';
    } catch (e) {
      // Clipboard access can be refused (permissions, insecure origin): select the text for a manual copy instead.
      const range = document.createRange();
      range.selectNodeContents(document.getElementById(sqlId));
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      copyStatus.textContent = 'Copying was refused by the browser; the statement is selected: press Ctrl+C.';
    }
  }

  async function run(page) {
    runButton.disabled = true;
    error.hidden = true;
    results.replaceChildren(h('p', { role: 'status' }, 'Running read-only…'));
    try {
      const answer = await agent(`/api/conversations/${encodeURIComponent(conversationId)}/plans/${turnId}/run`
        + `?page=${page}&pageSize=${PAGE_SIZE}`, { method: 'POST' });
      results.replaceChildren(resultTable(answer, run));
      announce(`The statement ran: ${answer.rows.length} rows on page ${answer.page + 1}.`);
    } catch (problem) {
      results.replaceChildren();
      error.textContent = explain(problem);
      error.hidden = false;
    } finally {
      runButton.disabled = !runnable;
    }
  }

  return h('article', { class: 'card plan statement', 'aria-labelledby': titleId },
    h('h3', { id: titleId }, 'Drafted statement (PostgreSQL)'),
    h('pre', { class: 'sql', id: sqlId, tabindex: '0', 'aria-label': 'SQL statement' }, h('code', {}, statement.sql)),
    h('div', { class: 'buttons' }, h('button', { type: 'button', class: 'copy', onclick: copy }, 'Copy statement'),
      runButton, copyStatus),
    statement.rationale ? h('p', { class: 'rationale' }, statement.rationale) : null,
    h('h4', {}, 'Guard'),
    h('p', { class: guard.singleSelect ? 'guard ok' : 'guard objection' },
      guard.singleSelect ? 'Read as a single read-only SELECT. ' : 'Not classified as a single read-only SELECT. ',
      guard.reason || ''),
    h('h4', {}, 'Validation against your schema'),
    h('ul', { class: 'findings' },
      h('li', {}, `Tables named: ${(validation.tables || []).join(', ') || 'none'}`),
      unknown.length === 0 ? h('li', {}, 'Every table and column it names is known.')
        : h('li', { class: 'objection' }, `Unknown names: ${unknown.join(', ')}`),
      validation.limits ? h('li', { class: 'hint' }, validation.limits) : null),
    runnable ? null : h('p', { class: 'hint' }, 'It cannot be run here: only a single read-only SELECT over known '
      + 'tables runs. Copy it and review it yourself.'),
    error, results);
}

function resultTable(answer, run) {
  const notes = [];
  if (answer.rows.length === 0) {
    notes.push('No rows: the statement matched nothing in your tenant.');
  }
  if (answer.capped) {
    notes.push('Only the first rows are reachable (cap reached).');
  }
  if (answer.truncatedCells) {
    notes.push('Some long values were cut.');
  }
  if (answer.cutShort) {
    notes.push('This page ended early: its values reached the size limit. A smaller page size shows the rest.');
  }
  return h('div', {},
    h('table', { class: 'result-table' },
      h('caption', {}, `Result, page ${answer.page + 1} (${answer.rows.length} rows)`),
      h('thead', {}, h('tr', {}, answer.columns.map((column) => h('th', { scope: 'col' }, column)))),
      h('tbody', {}, answer.rows.map((row) => h('tr', {}, row.map((cell) => h('td', {},
        cell === null ? '—' : String(cell))))))),
    notes.length ? h('p', { class: 'hint' }, notes.join(' ')) : null,
    h('div', { class: 'buttons' },
      answer.page > 0 ? h('button', { type: 'button', onclick: () => run(answer.page - 1) }, 'Previous page') : null,
      answer.hasMore ? h('button', { type: 'button', onclick: () => run(answer.page + 1) }, 'Next page') : null));
}
