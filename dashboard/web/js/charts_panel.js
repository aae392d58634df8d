// SPDX-License-Identifier: MIT
// Live charts of one job: device idle, data stall, overlap and step time over
// time, each with the job mean, job max and the selected rank. History comes
// from GET /series (one request per metric when the job or window changes,
// or after a reconnect); WebSocket ticks append points. Memory is bounded by
// SeriesStore's capacity (10 min at 1 s). Main thread only.
import { api } from './api.js';
import { h } from './dom.js';
import { windowLabel } from './format.js';
import { MetricChart } from './metric_chart.js';
import { SeriesStore } from './series_store.js';
import { kProxyNote } from './verdict.js';

const kHistorySeconds = 600;

export const kChartMetrics = [
  { metric: 'device_idle_ratio', title: 'Device idle', kind: 'ratio' },
  { metric: 'data_stall_ratio', title: 'Data stall', kind: 'ratio' },
  { metric: 'overlap_ratio', title: 'Overlap', kind: 'ratio' },
  { metric: 'step_seconds_p50', title: 'Step time', kind: 'seconds' },
];

export class ChartsPanel {
  constructor() {
    this.store = new SeriesStore(kHistorySeconds);
    this.charts = kChartMetrics.map((m) => new MetricChart(m));
    this.job = null;
    this.window = null;
    this.startNs = null;
    this.reloadWhenKnown = false;
    this.rank = null;
    this.abort = null;
    this.version = 0;
    this.drawn = -1;
    this.caption = h('span', { class: 'muted' });
    this.error = h('span', { class: 'error-text', role: 'alert' });
    const grid = h('div', { class: 'charts' }, this.charts.map((c) => c.element));
    this.element = h('section', { class: 'panel', 'aria-labelledby': 'charts-title' },
      h('div', { class: 'panel-head' }, h('h2', { id: 'charts-title' }, 'Over time'), this.caption, h('span', { class: 'spacer' }), this.error),
      grid);
    new ResizeObserver(() => this.resize(grid)).observe(grid);
    document.addEventListener('themechange', () => this.charts.forEach((c) => c.retheme()));
  }

  resize(grid) {
    const cols = getComputedStyle(grid).gridTemplateColumns.split(' ').length;
    const width = grid.clientWidth / cols - 24;
    for (const c of this.charts) c.resize(width);
  }

  // Loads history when the job or window changed; `force` reloads anyway
  // (after a reconnect, to fill the gap). `startNs` is the job's start: the
  // charts begin there.
  setTarget(job, window, force = false, startNs = this.startNs) {
    if (!force && job === this.job && window === this.window) return;
    this.job = job;
    this.window = window;
    this.startNs = startNs;
    this.caption.textContent = `each point: metric over the preceding ${windowLabel(window)}`;
    if (this.abort) this.abort.abort();
    this.reloadWhenKnown = false;
    if (!force) this.store.clear();
    this.version += 1;
    if (!job || !window) return;
    const abort = new AbortController();
    this.abort = abort;
    const loads = kChartMetrics.map(({ metric }) =>
      api.series(job, metric, window, kHistorySeconds, abort.signal).then((body) => {
        this.store.load(metric, body, this.startNs > 0 ? this.startNs / 1e9 : null);
        this.version += 1;
        return body;
      }));
    Promise.all(loads).then(
      (bodies) => {
        // A tree head names the nodes whose ranks it could not get.
        const failed = bodies.flatMap((b) => b.failed_nodes ?? []);
        const nodes = [...new Set(failed.map((f) => f.node))];
        this.error.textContent = nodes.length
          ? `history of the ranks on ${nodes.join(', ')} unavailable: ${failed[0].error}` : '';
      },
      (err) => {
        if (abort.signal.aborted) return;
        // A restarted collector does not know the job until its agents send
        // again: load the history on the first tick that has the job.
        this.reloadWhenKnown = err.status === 404;
        this.error.textContent = this.reloadWhenKnown ? '' : `history unavailable: ${err.message}`;
      });
  }

  // Appends the tick's values (JobDetail body for the open job); a finished
  // job's figures no longer change, so its history is not extended.
  onTick(detail, nowNs) {
    if (!detail || detail.job !== this.job || !this.window) return;
    if (this.reloadWhenKnown) this.setTarget(this.job, this.window, true, detail.start_ns);
    if (detail.state === 'finished') return;
    const agg = detail.summary?.[this.window];
    const t = nowNs / 1e9;
    for (const { metric } of kChartMetrics) {
      const ranks = new Map();
      for (const r of detail.ranks ?? []) ranks.set(r.rank, r.windows?.[this.window]?.[metric] ?? null);
      if (this.store.append(metric, t, agg?.mean?.[metric] ?? null, agg?.max?.[metric] ?? null, ranks)) this.version += 1;
    }
  }

  update(rank, proxy) {
    this.charts[0].setProxy(proxy, kProxyNote);
    if (rank === this.rank && this.version === this.drawn) return;
    this.rank = rank;
    this.drawn = this.version;
    const label = rank === null || rank === undefined ? 'rank' : `rank ${rank}`;
    for (const c of this.charts) c.setData(this.store.columns(c.metric, rank), label);
  }
}
