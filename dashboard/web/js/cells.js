// SPDX-License-Identifier: MIT
// Small cell renderers shared by the job and rank tables.
import { h } from './dom.js';
import { count, pct } from './format.js';

// A ratio as "61.3%" with a 44 px bar; `tone` ('', 'warn', 'bad') colours the bar.
export function ratioBar(ratio, tone = '') {
  const width = ratio === null || ratio === undefined || !Number.isFinite(ratio) ? 0 : Math.max(0, Math.min(1, ratio)) * 100;
  return h('span', { class: `cell-bar ${tone}`.trim() },
    h('span', { class: 'bar', 'aria-hidden': 'true' }, h('span', { style: `width:${width.toFixed(1)}%` })),
    h('span', { class: 'v' }, pct(ratio)));
}

// "dropped / lost" counters; amber when anything was lost.
export function lossCell(dropped, lost) {
  const bad = (dropped ?? 0) > 0 || (lost ?? 0) > 0;
  return h('span', { class: bad ? 'pill warn' : 'muted', title: 'events dropped by the agent / batches lost in transit' },
    `${count(dropped ?? 0)} / ${count(lost ?? 0)}`);
}
