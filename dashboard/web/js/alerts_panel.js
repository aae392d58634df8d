// SPDX-License-Identifier: MIT
// The alerts panel: firing, then pending, then resolved alerts from
// GET /api/v1/alerts and every tick. In a job view it lists that job's alerts
// and counts the others. Shows an explicit "no alerts" state. Rebuilt from
// state on each render; owns nothing.
import { h, replaceChildren } from './dom.js';
import { ago, pct, seconds, windowLabel } from './format.js';

const kOrder = { firing: 0, pending: 1, resolved: 2 };

function valueText(metric, v) {
  if (metric?.endsWith('_ratio')) return pct(v);
  if (metric?.endsWith('_seconds')) return seconds(v);
  return v === null || v === undefined ? '—' : String(Math.round(v * 1000) / 1000);
}

// "firing for 2 min", "pending for 13 s", "resolved 5 min ago".
function since(a, nowNs) {
  if (a.state === 'resolved') return `resolved ${ago(a.resolved_at_ns, nowNs)}`;
  const start = a.state === 'firing' ? a.fired_at_ns ?? a.active_since_ns : a.active_since_ns;
  const held = ago(start, nowNs);
  return held === 'now' ? `${a.state}, just now` : `${a.state} for ${held.replace(/ ago$/, '')}`;
}

function alertItem(a, nowNs) {
  const where = a.scope === 'job' || a.rank === null || a.rank === undefined ? a.job : `${a.job} · rank ${a.rank}`;
  const desc = a.annotations?.summary;
  return h('li', { class: `alert ${a.state}`, dataset: { alertId: a.id, state: a.state } },
    h('span', { class: 'dot', 'aria-hidden': 'true' }),
    h('div', { class: 'title' }, a.name, h('span', { class: 'muted' }, where)),
    h('div', { class: 'meta' },
      `${a.metric ?? ''} ${valueText(a.metric, a.value)} vs ${valueText(a.metric, a.threshold)}${a.window ? ` (${windowLabel(a.window)})` : ''} · ${since(a, nowNs)}`),
    desc ? h('div', { class: 'desc' }, desc) : null);
}

export function renderAlerts(el, { alerts, job, nowNs }) {
  const all = alerts ?? [];
  const shown = (job ? all.filter((a) => a.job === job) : all)
    .slice()
    .sort((x, y) => (kOrder[x.state] ?? 3) - (kOrder[y.state] ?? 3) || (y.active_since_ns ?? 0) - (x.active_since_ns ?? 0));
  const n = (state) => shown.filter((a) => a.state === state).length;
  const counts = h('span', { class: 'alerts-counts' },
    n('firing') ? h('span', { class: 'pill bad' }, `${n('firing')} firing`) : null,
    n('pending') ? h('span', { class: 'pill warn' }, `${n('pending')} pending`) : null);
  const head = h('div', { class: 'panel-head' }, h('h2', { id: 'alerts-title' }, job ? 'Alerts · this job' : 'Alerts'), h('span', { class: 'spacer' }), counts);
  const others = job ? all.filter((a) => a.job !== job && a.state !== 'resolved').length : 0;
  const body = alerts === null || alerts === undefined
    ? h('div', { class: 'empty' }, 'loading alerts…')
    : shown.length
      ? h('ul', { class: 'alerts-list' }, shown.map((a) => alertItem(a, nowNs)))
      : h('div', { class: 'empty', dataset: { empty: 'alerts' } }, h('strong', {}, 'no alerts'), job ? 'Nothing pending or firing for this job.' : 'Nothing pending or firing.');
  el.dataset.firing = String(n('firing'));
  replaceChildren(el, head, body,
    others ? h('div', { class: 'alerts-more' }, `${others} active in other jobs — `, h('a', { href: '#/' }, 'all jobs')) : null);
}
