// Training plans on the decision page: the signed-in person's active plan and drafts, and committing a draft. The agent
// can only draft plans; making one the active plan is the person's act, on this page (POST .../plans/{id}/commit).
// One plan is active at a time: the commit archives the plan active before, which the page says before it commits;
// the commit names the draft's version and that active plan, so a revision or another commit in between refuses it.

import { get, post, explain, isSessionEnded } from './api.js';
import { h, announce } from '/shared/dom.js';
import { askFirst } from './ask.js';

const $ = (id) => document.getElementById(id);

function quoted(plan) {
  return `“${plan.name}”`;
}

function planCard(plan, active) {
  const ask = h('div', { class: 'ask', hidden: true });
  const heading = h('h3', { tabindex: '-1' }, plan.name);
  const commit = plan.status === 'draft'
    ? h('button', { type: 'button', onclick: () => askFirst(ask, {
      question: active
        ? `${quoted(plan)} becomes your active plan, and ${quoted(active)} is archived: you have one active plan at a`
          + ' time, and an archived plan cannot be made active again.'
        : `${quoted(plan)} becomes your active plan.`,
      yes: active ? `Commit ${quoted(plan)} and archive ${quoted(active)}` : `Commit ${quoted(plan)}`,
      no: 'Keep it a draft',
      returnFocusTo: commit,
      onYes: () => commitPlan(plan, active),
    }) }, `Make ${quoted(plan)} my active plan…`)
    : null;
  return h('article', { class: 'plan card', 'data-plan-id': plan.id, 'data-status': plan.status },
    h('div', { class: 'card-head' }, heading,
      h('span', { class: 'status' }, plan.status === 'active' ? 'Active plan' : 'Draft')),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Goal'), h('dd', {}, plan.goal || '—'),
      h('dt', {}, 'Starts'), h('dd', {}, plan.startsOn)),
    h('pre', { class: 'schedule' }, plan.schedule),
    commit ? h('div', { class: 'buttons' }, commit) : null,
    ask);
}

async function commitPlan(plan, active) {
  try {
    // What the person read: this version of the draft, and the active plan the question named (or none). If either
    // changed meanwhile the executor refuses (plan_changed) and nothing changes.
    const { body } = await post(`/api/actions/plans/${encodeURIComponent(plan.id)}/commit`,
      { version: plan.version, replaces: active ? active.id : null });
    announce(`${quoted(plan)} is now your active plan${body.archivedPlanId && active ? `; ${quoted(active)} was archived` : ''}.`);
    await showPlans();
    const card = $('plans').querySelector(`[data-plan-id="${plan.id}"] h3`);
    if (card) {
      card.focus();
    }
  } catch (problem) {
    if (isSessionEnded(problem)) {
      return;
    }
    // A conflict (the plan is no longer a draft, or another became active meanwhile): the list shows them as they are.
    await showPlans();
    $('plans').prepend(h('p', { class: 'card-error', role: 'alert' }, `${quoted(plan)} was not committed. ${explain(problem)}`));
  }
}

export async function showPlans() {
  const area = $('plans');
  area.replaceChildren(h('p', { role: 'status' }, 'Loading…'));
  let plans;
  try {
    plans = await get('/api/actions/plans');
  } catch (problem) {
    if (!isSessionEnded(problem)) {
      area.replaceChildren(h('p', { class: 'card-error' }, `Could not load your plans. ${explain(problem)}`));
    }
    return;
  }
  const active = plans.find((plan) => plan.status === 'active') || null;
  area.replaceChildren(...(plans.length === 0
    ? [h('p', {}, 'You have no training plan yet. Ask the agent to draft one; it appears here to commit.')]
    : plans.map((plan) => planCard(plan, active))));
}
