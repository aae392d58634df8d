// SPDX-License-Identifier: MIT
// Columns of the per-rank table. `ctx.window` is the selected window name;
// values are the raw API numbers (sorting and data-value), renderers format.
// NVML utilization sits beside device idle as a cross-check (gpu_counters.js).
import { h } from './dom.js';
import { ratioBar, lossCell } from './cells.js';
import { DASH, bytesRate, epochStep, pct, rate, seconds } from './format.js';
import { deviceSourceCell, kProxyNote, stateCell, verdictCell } from './verdict.js';
import { kNvmlNote, nvmlTooltip, nvmlUtilization } from './gpu_counters.js';

const metric = (row, ctx, name) => row.windows?.[ctx.window]?.[name] ?? null;

export const rankColumns = [
  {
    key: 'rank', label: 'Rank', num: false, pref: 'asc',
    value: (r) => r.rank,
    render: (r, ctx) => (r.rank === ctx.straggler ? h('span', { class: 'tag warn', title: 'straggler: the slowest rank in this window' }, 'straggler') : null),
  },
  { key: 'state', label: 'State', pref: 'asc', value: (r) => r.state, render: (r) => stateCell(r.state) },
  {
    key: 'verdict', label: 'Verdict', pref: 'asc', title: 'Verdict over the selected window',
    value: (r, ctx) => metric(r, ctx, 'verdict') ?? r.verdict,
    render: (r, ctx) => verdictCell(metric(r, ctx, 'verdict') ?? r.verdict, metric(r, ctx, 'cause') ?? r.cause),
  },
  {
    key: 'device_idle_ratio', label: 'Device idle', num: true,
    title: 'Share of the window with no device activity',
    value: (r, ctx) => metric(r, ctx, 'device_idle_ratio'),
    render: (r, ctx) => {
      const cell = ratioBar(metric(r, ctx, 'device_idle_ratio'));
      if (r.device_source === 'compute-proxy') cell.title = kProxyNote;
      return cell;
    },
  },
  {
    key: 'nvml_utilization', label: 'NVML util', num: true, title: kNvmlNote,
    value: (r, ctx) => nvmlUtilization(r, ctx.window),
    render: (r, ctx) => {
      if (!(r.gpu_counters ?? []).length) return h('span', { class: 'muted', title: 'no NVML counters from this rank' }, DASH);
      const util = nvmlUtilization(r, ctx.window);
      return h('span', { title: nvmlTooltip(r, ctx.window) }, util === null ? DASH : `${util.toFixed(0)} %`);
    },
  },
  {
    key: 'data_stall_ratio', label: 'Data stall', num: true,
    title: 'Share of the window the device idles while the loop waits for data',
    value: (r, ctx) => metric(r, ctx, 'data_stall_ratio'),
    render: (r, ctx) => ratioBar(metric(r, ctx, 'data_stall_ratio'), (metric(r, ctx, 'verdict') ?? r.verdict) === 'data-starved' ? 'bad' : ''),
  },
  {
    key: 'peer_wait_ratio', label: 'Waiting for peers', num: true,
    title: 'Share of the window blocked in collectives before the last rank of the job arrived',
    value: (r, ctx) => {
      const wait = metric(r, ctx, 'peer_wait_seconds');
      const wall = metric(r, ctx, 'wall_seconds');
      return Number.isFinite(wait) && wall > 0 ? wait / wall : null;
    },
    render: (r, ctx) => {
      const wait = metric(r, ctx, 'peer_wait_seconds');
      const wall = metric(r, ctx, 'wall_seconds');
      const waiting = (metric(r, ctx, 'verdict') ?? r.verdict) === 'waiting-for-peers';
      return ratioBar(Number.isFinite(wait) && wall > 0 ? wait / wall : null, waiting ? 'warn' : '');
    },
  },
  {
    key: 'unoverlapped_app_io_seconds', label: 'Unoverl. app I/O', num: true,
    title: 'Application I/O not overlapped with compute, seconds in the window',
    value: (r, ctx) => metric(r, ctx, 'unoverlapped_app_io_seconds'),
    render: (r, ctx) => seconds(metric(r, ctx, 'unoverlapped_app_io_seconds')),
  },
  {
    key: 'overlap_ratio', label: 'Overlap', num: true,
    title: '1 − unoverlapped app I/O / app I/O',
    value: (r, ctx) => metric(r, ctx, 'overlap_ratio'),
    render: (r, ctx) => pct(metric(r, ctx, 'overlap_ratio')),
  },
  {
    key: 'step_seconds_p50', label: 'Step p50', num: true, title: 'Median step time (p95 in the tooltip)',
    value: (r, ctx) => metric(r, ctx, 'step_seconds_p50'),
    render: (r, ctx) => h('span', { title: `p95 ${seconds(metric(r, ctx, 'step_seconds_p95'))}` }, seconds(metric(r, ctx, 'step_seconds_p50'))),
  },
  { key: 'steps_per_second', label: 'Steps/s', num: true, value: (r, ctx) => metric(r, ctx, 'steps_per_second'), render: (r, ctx) => rate(metric(r, ctx, 'steps_per_second')).replace('/s', '') },
  {
    key: 'read_bytes_per_second', label: 'Read/s', num: true,
    title: 'Bytes per second returned by captured read calls (POSIX, STDIO); write bytes and read/write calls per second in the tooltip; — without captured I/O',
    value: (r, ctx) => metric(r, ctx, 'read_bytes_per_second'),
    render: (r, ctx) => h('span', {
      title: `write ${bytesRate(metric(r, ctx, 'write_bytes_per_second'))}, `
        + `${rate(metric(r, ctx, 'read_ops_per_second'))} reads, ${rate(metric(r, ctx, 'write_ops_per_second'))} writes`,
    }, bytesRate(metric(r, ctx, 'read_bytes_per_second'))),
  },
  { key: 'samples_per_second', label: 'Samples/s', num: true, value: (r, ctx) => metric(r, ctx, 'samples_per_second'), render: (r, ctx) => rate(metric(r, ctx, 'samples_per_second')).replace('/s', '') },
  {
    key: 'step', label: 'Epoch · step', num: true, title: 'Latest epoch and step reported',
    value: (r) => (r.step >= 0 ? r.step : null),
    render: (r) => epochStep(r.epoch, r.step),
  },
  { key: 'device_source', label: 'Device', pref: 'asc', value: (r) => r.device_source, render: (r) => deviceSourceCell(r.device_source) },
  {
    key: 'loss', label: 'Dropped / lost', num: true,
    title: 'Events the agent dropped / batches lost in transit (sequence gaps)',
    value: (r) => (r.agent_dropped ?? 0) + (r.lost_batches ?? 0),
    render: (r) => lossCell(r.agent_dropped, r.lost_batches),
  },
];
