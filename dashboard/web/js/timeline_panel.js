// SPDX-License-Identifier: MIT
// The live timeline panel for the selected rank: span selector (10/30/60 s),
// legend, share of time per class, and the canvas. Polls GET /timeline about
// once a second while the tab is visible (one request in flight at most,
// aborted when the rank or span changes). Main thread only.
import { api } from './api.js';
import { h, replaceChildren } from './dom.js';
import { pct } from './format.js';
import { TimelineCanvas } from './timeline_canvas.js';
import { buildTimeline, classCounts, coverage } from './timeline_model.js';

export const kSpans = [10, 30, 60];
const kRefreshMs = 1000;

const kLegend = [
  ['device_busy', 'device busy'], ['fetch', 'fetch (waiting for data)'], ['compute', 'compute'],
  ['app_io', 'app I/O'], ['io', 'I/O'], ['comm', 'comm'], ['pipeline', 'pipeline'],
  ['peer_wait', 'waiting for peers'],
];

export class TimelinePanel {
  constructor({ tooltip, onSpan }) {
    this.onSpan = onSpan;
    this.canvas = new TimelineCanvas(tooltip);
    this.job = null;
    this.rank = null;
    this.span = kSpans[0];
    this.inFlight = null;
    this.title = h('h2', { id: 'timeline-title' }, 'Timeline');
    this.spanButtons = kSpans.map((s) => h('button', { type: 'button', role: 'radio', 'aria-checked': 'false', onclick: () => this.onSpan(s) }, `${s} s`));
    this.stats = h('span', { class: 'timeline-stats', 'aria-live': 'off' });
    this.note = h('div', { class: 'empty', hidden: true });
    this.scroll = h('div', { class: 'timeline-scroll' }, this.canvas.canvas);
    const legend = h('div', { class: 'legend', 'aria-label': 'Legend' },
      kLegend.map(([cls, label]) => h('span', {}, h('i', { style: `background:var(--c-${cls})` }), label)),
      h('span', {}, h('i', { class: 'open' }), 'open (still running)'),
      h('span', {}, h('i', { style: 'width:2px;background:var(--c-mark)' }), 'mark'));
    this.element = h('section', { class: 'panel', 'aria-labelledby': 'timeline-title', dataset: { regions: '0' } },
      h('div', { class: 'panel-head' }, this.title,
        h('div', { class: 'segmented', role: 'radiogroup', 'aria-label': 'Timeline span (t)' }, h('span', { class: 'seg-label' }, 'last'), this.spanButtons),
        this.stats, h('span', { class: 'spacer' })),
      h('div', { class: 'panel-body', style: 'padding-bottom:4px' }, legend),
      this.note, this.scroll);
    new ResizeObserver(() => this.canvas.resize(this.scroll.clientWidth)).observe(this.scroll);
    setInterval(() => this.refresh(), kRefreshMs);
  }

  setTarget(job, rank, span) {
    if (job === this.job && rank === this.rank && span === this.span) return;
    this.job = job;
    this.rank = rank;
    this.span = span;
    this.title.textContent = rank === null || rank === undefined ? 'Timeline' : `Timeline · rank ${rank}`;
    this.spanButtons.forEach((b, i) => b.setAttribute('aria-checked', String(kSpans[i] === span)));
    if (this.inFlight) this.inFlight.abort();
    this.inFlight = null;
    this.canvas.setModel(null);
    this.show('loading timeline…');
    this.refresh();
  }

  show(message) {
    this.note.hidden = !message;
    this.note.textContent = message ?? '';
    this.scroll.hidden = Boolean(message);
  }

  refresh() {
    if (this.inFlight || document.hidden || !this.job || this.rank === null || this.rank === undefined) return;
    const abort = new AbortController();
    this.inFlight = abort;
    const { job, rank, span } = this;
    api.timeline(job, rank, span, abort.signal).then(
      (body) => {
        if (this.inFlight === abort) this.inFlight = null;
        if (job === this.job && rank === this.rank && span === this.span) this.render(body);
      },
      (err) => {
        if (this.inFlight === abort) this.inFlight = null;
        if (!abort.signal.aborted) this.show(`timeline unavailable: ${err.message}`);
      });
  }

  render(body) {
    const model = buildTimeline(body);
    this.element.dataset.regions = String(model.count);
    this.element.dataset.lanes = String(model.lanes.length);
    this.element.dataset.classes = Object.entries(classCounts(model.lanes)).map(([c, n]) => `${c}:${n}`).join(' ');
    if (model.count === 0 && !model.lanes.some((l) => l.marks.length)) {
      this.show(`no regions from rank ${this.rank} in the last ${this.span} s`);
      replaceChildren(this.stats);
      return;
    }
    this.show(null);
    this.canvas.setModel(model, this.scroll.clientWidth);
    const share = (cls) => coverage(model.lanes, cls, model.span);
    const hasDevice = model.lanes.some((l) => l.kind === 'device');
    replaceChildren(this.stats,
      hasDevice ? ['device busy ', h('b', {}, pct(share('device_busy'), 0)), ' · '] : ['no device signal · '],
      'fetch ', h('b', {}, pct(share('fetch'), 0)), ' · compute ', h('b', {}, pct(share('compute'), 0)),
      model.truncated ? ' · truncated to the newest regions' : '');
    this.canvas.canvas.setAttribute('aria-label',
      `Timeline of rank ${this.rank}, last ${this.span} s: ${model.count} regions in ${model.lanes.length} lanes; ${this.stats.textContent}`);
  }
}
