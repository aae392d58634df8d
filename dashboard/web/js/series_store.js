// SPDX-License-Identifier: MIT
// Bounded history of one job's metrics over time, for the charts: per metric
// a shared time axis (Unix seconds) with the job mean, the job max and one
// column per rank. Filled from GET /series and extended by WebSocket ticks;
// never holds more than `capacity` points per metric. Pure data, no DOM.

function emptyColumn(n) {
  return new Array(n).fill(null);
}

class MetricHistory {
  constructor() {
    this.t = [];
    this.mean = [];
    this.max = [];
    this.ranks = new Map();
    this.step = 1;
  }

  column(rank) {
    let col = this.ranks.get(rank);
    if (!col) {
      col = emptyColumn(this.t.length);
      this.ranks.set(rank, col);
    }
    return col;
  }

  trim(capacity) {
    this.drop(this.t.length - capacity);
  }

  // GET /series covers the whole requested span, so a young job's history
  // starts with nulls that would squeeze its data against the right edge of
  // the chart. Drops the points before `from` (Unix seconds: the job's start,
  // the same for every metric so the charts stay aligned), or before the
  // first value when the start is not known.
  trimBefore(from) {
    if (Number.isFinite(from)) {
      let first = 0;
      while (first < this.t.length && this.t[first] < from) first += 1;
      this.drop(first);
      return;
    }
    const cols = [this.mean, this.max, ...this.ranks.values()];
    let first = 0;
    while (first < this.t.length && cols.every((col) => col[first] === null || col[first] === undefined)) first += 1;
    this.drop(first);
  }

  drop(n) {
    if (n <= 0) return;
    this.t.splice(0, n);
    this.mean.splice(0, n);
    this.max.splice(0, n);
    for (const col of this.ranks.values()) col.splice(0, n);
  }
}

export class SeriesStore {
  constructor(capacity = 600) {
    this.capacity = capacity;
    this.metrics = new Map();
  }

  clear() {
    this.metrics.clear();
  }

  history(metric) {
    let h = this.metrics.get(metric);
    if (!h) {
      h = new MetricHistory();
      this.metrics.set(metric, h);
    }
    return h;
  }

  // Replaces a metric's history with a GET /series response body, from
  // `from` (Unix seconds) on, or from its first value when `from` is null.
  load(metric, body, from = null) {
    const h = new MetricHistory();
    h.step = body.step_seconds > 0 ? body.step_seconds : 1;
    h.t = Array.from(body.t ?? []);
    const n = h.t.length;
    const fit = (arr) => {
      const a = Array.from(arr ?? []).slice(0, n);
      while (a.length < n) a.push(null);
      return a;
    };
    h.mean = fit(body.mean);
    h.max = fit(body.max);
    for (const r of body.ranks ?? []) h.ranks.set(r.rank, fit(r.values));
    h.trimBefore(from);
    h.trim(this.capacity);
    this.metrics.set(metric, h);
  }

  // Appends one live point at `t` (Unix seconds). Points closer than half a
  // resolution step to the previous one are dropped, so ticks faster than the
  // history's resolution do not make the live tail denser than the past.
  // `rankValues` maps rank -> value; ranks not in it get a gap (null). After
  // a pause of several steps (a lost connection) a null point goes in first,
  // so the charts break the line instead of bridging the outage.
  append(metric, t, mean, max, rankValues) {
    const h = this.history(metric);
    const last = h.t.length ? h.t[h.t.length - 1] : -Infinity;
    if (!(t - last >= h.step * 0.5)) return false;
    for (const rank of rankValues.keys()) h.column(rank);
    if (Number.isFinite(last) && t - last > h.step * 2.5) {
      h.t.push(last + h.step);
      h.mean.push(null);
      h.max.push(null);
      for (const col of h.ranks.values()) col.push(null);
    }
    h.t.push(t);
    h.mean.push(mean ?? null);
    h.max.push(max ?? null);
    for (const [rank, col] of h.ranks) col.push(rankValues.has(rank) ? rankValues.get(rank) ?? null : null);
    h.trim(this.capacity);
    return true;
  }

  // Columns for a chart: [t, mean, max, rank] (rank column all-null when the
  // rank is unknown or null).
  columns(metric, rank) {
    const h = this.metrics.get(metric);
    if (!h) return [[], [], [], []];
    const rankCol = rank !== null && rank !== undefined && h.ranks.has(rank)
      ? h.ranks.get(rank)
      : emptyColumn(h.t.length);
    return [h.t, h.mean, h.max, rankCol];
  }
}
