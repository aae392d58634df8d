// SPDX-License-Identifier: MIT
// Development only: a deterministic simulation of a few training jobs that
// produces bodies shaped like docs/api.md, so the page can be built and
// looked at before stallwatchd serves it. Values are smooth functions of time
// (series, ticks and timeline agree); nothing here is measured.

const kWindows = ['10s', '60s', '300s', 'total'];
const kWindowSeconds = { '10s': 10, '60s': 60, '300s': 300, total: 3600 };

function hash(...xs) {
  let x = 2166136261;
  for (const v of xs) {
    x ^= Math.floor(v) & 0xffffffff;
    x = Math.imul(x, 16777619) >>> 0;
  }
  return (x % 10000) / 10000;
}

const kJobs = [
  { job: 'demo-slow', ranks: 4, source: 'cupti', fetch: 0.12, compute: 0.045, busy: 0.8, batch: 64, straggler: 2, workers: 2, age: 1800 },
  { job: 'demo-fast', ranks: 2, source: 'cuda-events', fetch: 0.004, compute: 0.06, busy: 0.92, batch: 64, straggler: null, workers: 4, age: 900 },
  { job: 'bert-finetune-17', ranks: 1, source: 'compute-proxy', fetch: 0.01, compute: 0.05, busy: 0.55, batch: 32, straggler: null, workers: 1, age: 5400, finishedAgo: 240 },
];

export class MockModel {
  constructor({ empty = false } = {}) {
    this.start = Date.now() / 1000;
    this.jobs = empty ? [] : kJobs;
    this.tick = 0;
  }

  nowNs() {
    return Math.round(Date.now() * 1e6);
  }

  spec(job) {
    return this.jobs.find((j) => j.job === job) ?? null;
  }

  // Per-step timing of one rank at time t (seconds).
  timing(spec, rank, t) {
    const slow = spec.straggler === rank ? 1.35 : 1 + 0.06 * rank;
    const wave = 1 + 0.25 * Math.sin(t / 37 + rank) + 0.1 * Math.sin(t / 7.3 + 2 * rank);
    const fetch = spec.fetch * slow * wave;
    return { fetch, compute: spec.compute, period: fetch + spec.compute };
  }

  metrics(spec, rank, window, t) {
    const m = this.timing(spec, rank, t);
    const W = kWindowSeconds[window];
    const stall = (m.fetch / m.period) * (0.97 + 0.06 * hash(rank, Math.floor(t / 2)));
    const idle = 1 - (m.compute * spec.busy) / m.period;
    const appIo = W * (spec.workers * 0.35);
    const unover = W * stall * 0.9;
    const steps = W / m.period;
    return {
      window, start_ns: Math.round((t - W) * 1e9), end_ns: Math.round(t * 1e9), wall_seconds: W,
      compute_seconds: W * (m.compute / m.period), app_io_seconds: appIo, io_seconds: appIo * 0.6,
      fetch_seconds: W * (m.fetch / m.period), comm_seconds: 0,
      unoverlapped_app_io_seconds: unover, unoverlapped_io_seconds: unover * 0.5, unoverlapped_compute_seconds: 0,
      device_busy_seconds: W * (1 - idle), data_stall_seconds: W * stall,
      overlap_ratio: Math.max(0, 1 - unover / appIo), device_idle_ratio: idle, data_stall_ratio: stall,
      steps: Math.floor(steps), step_seconds_p50: m.period, step_seconds_p95: m.period * 1.18,
      steps_per_second: 1 / m.period, samples_per_second: spec.batch / m.period,
      verdict: stall > 0.3 ? 'data-starved' : idle > 0.4 ? 'host-bound' : 'well-overlapped',
    };
  }

  endTime(spec) {
    const now = Date.now() / 1000;
    return spec.finishedAgo ? now - spec.finishedAgo : now;
  }

  rankRow(spec, rank) {
    const t = this.endTime(spec);
    const windows = Object.fromEntries(kWindows.map((w) => [w, this.metrics(spec, rank, w, t)]));
    const basePid = 4000 + 100 * rank + (spec.job.length * 13) % 97;
    const processes = [{ pid: basePid, ppid: 1, role: 'main', device_source: spec.source === 'compute-proxy' ? 'none' : spec.source }];
    for (let w = 0; w < spec.workers; w += 1) processes.push({ pid: basePid + 1 + w, ppid: basePid, role: 'worker', device_source: 'none' });
    const startNs = Math.round((this.start - spec.age) * 1e9);
    const lastNs = Math.round(t * 1e9);
    const period = this.timing(spec, rank, t).period;
    const step = Math.floor(spec.age / period);
    return {
      rank, state: spec.finishedAgo ? 'finished' : 'active', verdict: windows['60s'].verdict, device_source: spec.source,
      start_ns: startNs, end_ns: spec.finishedAgo ? lastNs : 0, last_seen_ns: lastNs, watermark_ns: lastNs,
      epoch: Math.floor(step / 500), step,
      events_received: step * 14, batches_received: step, agent_dropped: spec.straggler === rank ? 12 : 0,
      lost_batches: 0, late_events: 0, unpaired_events: 0, windows,
      processes: processes.map((p) => ({
        host: 'node-a', ...p, agent_version: '0.1.0', start_ns: startNs, last_seen_ns: lastNs, watermark_ns: lastNs,
        finished: Boolean(spec.finishedAgo), open_regions: p.role === 'main' ? 1 : 0, counters: {},
      })),
    };
  }

  aggregate(rows, window) {
    const ms = rows.map((r) => r.windows[window]);
    const mean = {};
    const max = {};
    for (const k of Object.keys(ms[0])) {
      const vals = ms.map((m) => m[k]);
      if (typeof vals[0] === 'number') {
        mean[k] = vals.reduce((a, b) => a + b, 0) / vals.length;
        max[k] = Math.max(...vals);
      } else {
        mean[k] = vals[0];
        max[k] = vals[0];
      }
    }
    let straggler = null;
    if (rows.length > 1) straggler = rows.reduce((a, b) => (b.windows[window].data_stall_ratio > a.windows[window].data_stall_ratio ? b : a)).rank;
    return { mean, max, straggler_rank: straggler, verdict: ms[0].verdict };
  }

  counters(rows) {
    const c = { events_received: 0, batches_received: 0, agent_dropped: 0, lost_batches: 0, late_events: 0, unpaired_events: 0 };
    for (const r of rows) for (const k of Object.keys(c)) c[k] += r[k];
    return c;
  }

  detail(job) {
    const spec = this.spec(job);
    if (!spec) return null;
    const ranks = Array.from({ length: spec.ranks }, (_, r) => this.rankRow(spec, r));
    const summary = Object.fromEntries(kWindows.map((w) => [w, this.aggregate(ranks, w)]));
    return {
      ...this.header(), job, state: ranks[0].state, start_ns: ranks[0].start_ns, last_seen_ns: ranks[0].last_seen_ns,
      verdict: summary['60s'].verdict, device_source: spec.source, summary, counters: this.counters(ranks), ranks,
    };
  }

  header() {
    return { now_ns: this.nowNs(), tick: this.tick, windows: kWindows, verdict_window: '60s' };
  }

  jobSummaries() {
    return this.jobs.map((spec) => {
      const d = this.detail(spec.job);
      return {
        job: d.job, state: d.state, ranks: d.ranks.length, active_ranks: d.ranks.filter((r) => r.state === 'active').length,
        start_ns: d.start_ns, last_seen_ns: d.last_seen_ns, verdict: d.verdict, device_source: d.device_source,
        summary: d.summary, counters: d.counters,
      };
    });
  }

  series(job, metric, window, seconds) {
    const spec = this.spec(job);
    if (!spec) return null;
    const end = Math.floor(this.endTime(spec));
    const n = Math.min(seconds, spec.age);
    const t = Array.from({ length: n }, (_, i) => end - n + 1 + i);
    const ranks = Array.from({ length: spec.ranks }, (_, r) => ({ rank: r, values: t.map((x) => this.metrics(spec, r, window, x)[metric]) }));
    const mean = t.map((_, i) => ranks.reduce((a, r) => a + r.values[i], 0) / ranks.length);
    const max = t.map((_, i) => Math.max(...ranks.map((r) => r.values[i])));
    return { job, metric, window, step_seconds: 1, t, ranks, mean, max };
  }

  alerts() {
    const now = this.nowNs();
    if (!this.jobs.length) return [];
    const base = { severity: 'warning', metric: 'data_stall_ratio', window: '60s', threshold: 0.3, labels: {}, resolved_at_ns: null };
    return [
      { ...base, id: 'DataStarved/demo-slow/2', name: 'DataStarved', state: 'firing', job: 'demo-slow', rank: 2, scope: 'rank', value: 0.78, verdict: 'data-starved',
        annotations: { summary: 'rank 2 waits for data 78% of the last 60 s' }, active_since_ns: now - 312e9, fired_at_ns: now - 252e9 },
      { ...base, id: 'DataStarved/demo-slow/0', name: 'DataStarved', state: 'pending', job: 'demo-slow', rank: 0, scope: 'rank', value: 0.66, verdict: 'data-starved',
        annotations: {}, active_since_ns: now - 20e9, fired_at_ns: null },
      { ...base, id: 'DeviceIdle/bert-finetune-17', name: 'DeviceIdle', state: 'resolved', job: 'bert-finetune-17', rank: null, scope: 'job', metric: 'device_idle_ratio',
        value: 0.41, threshold: 0.5, verdict: 'host-bound', annotations: {}, active_since_ns: now - 1500e9, fired_at_ns: now - 1440e9, resolved_at_ns: now - 600e9 },
    ];
  }

  timeline(job, rank, seconds) {
    const spec = this.spec(job);
    if (!spec || rank < 0 || rank >= spec.ranks) return null;
    const to = this.endTime(spec);
    const from = to - seconds;
    const row = this.rankRow(spec, rank);
    const main = row.processes[0].pid;
    const ns = (x) => Math.round(x * 1e9);
    const regions = [];
    const marks = [];
    const add = (s, e, pid, tid, cls, classes, cat, name) => {
      if (e <= from || s >= to) return;
      const open = e > to;
      regions.push({ start_ns: ns(Math.max(s, from)), end_ns: ns(Math.min(e, to)), open, pid, tid, class: cls, classes, cat, name });
    };
    let t = Math.floor(from / 0.25) * 0.25 - 0.4;
    let k = Math.floor(t * 10);
    while (t < to) {
      const m = this.timing(spec, rank, t);
      const fetch = m.fetch * (0.8 + 0.4 * hash(rank, k));
      add(t, t + fetch, main, main, 'fetch', ['fetch', 'app_io'], 'dataloader', 'fetch.iter');
      const c0 = t + fetch;
      add(c0, c0 + m.compute, main, main, 'compute', ['compute'], 'compute', 'step');
      add(c0, c0 + m.compute * 0.35, main, main, 'compute', ['compute'], 'compute', 'forward');
      add(c0 + m.compute * 0.36, c0 + m.compute * 0.9, main, main, 'compute', ['compute'], 'compute', 'backward');
      add(c0 + m.compute * 0.9, c0 + m.compute, main, main, 'compute', ['compute'], 'compute', 'optimizer.step');
      if (spec.source !== 'compute-proxy') {
        for (let j = 0; j < 6; j += 1) {
          const ks = c0 + 0.002 + (j * m.compute) / 6;
          add(ks, ks + (m.compute / 6) * spec.busy, main, main + 7, 'device_busy', ['device_busy'], 'gpu', j % 3 === 0 ? 'ampere_sgemm_128x64_tn' : j % 3 === 1 ? 'cudnn::conv2d_fprop' : 'Memcpy HtoD');
        }
      }
      if (k % 50 === 0) marks.push({ ts_ns: ns(t), pid: main, tid: main, name: 'epoch.start', value: Math.floor(k / 50) % 100 });
      for (let w = 0; w < spec.workers; w += 1) {
        const pid = main + 1 + w;
        if ((k + w) % spec.workers === 0) {
          const g0 = t + 0.01 * w;
          const dur = m.period * spec.workers * 0.7 * (0.7 + 0.5 * hash(k, w));
          add(g0, g0 + dur, pid, pid, 'app_io', ['app_io'], 'dataloader', 'dataset.__getitem__');
          add(g0 + 0.002, g0 + dur * 0.45, pid, pid, 'io', ['io'], 'POSIX', 'read');
          add(g0 + dur * 0.5, g0 + dur * 0.55, pid, pid, 'io', ['io'], 'POSIX', 'open64');
        }
      }
      t = c0 + m.compute;
      k += 1;
    }
    const threads = [{ pid: main, tid: main, role: 'main' }];
    for (let w = 0; w < spec.workers; w += 1) threads.push({ pid: main + 1 + w, tid: main + 1 + w, role: 'worker' });
    return { job, rank, from_ns: ns(from), to_ns: ns(to), truncated: false, threads, regions, marks };
  }
}
