// SPDX-License-Identifier: MIT
// Columns of the job list. Job figures are the job mean over the selected
// window (`ctx.window`), with the worst rank where that is what matters.
import { ratioBar } from './cells.js';
import { h } from './dom.js';
import { ago, rate } from './format.js';
import { deviceSourceCell, stateCell, verdictCell } from './verdict.js';

const agg = (job, ctx) => job.summary?.[ctx.window] ?? null;
const mean = (job, ctx, name) => agg(job, ctx)?.mean?.[name] ?? null;
const max = (job, ctx, name) => agg(job, ctx)?.max?.[name] ?? null;

export const jobColumns = [
  { key: 'job', label: 'Job', pref: 'asc', value: (j) => j.job },
  { key: 'state', label: 'State', pref: 'asc', value: (j) => j.state, render: (j) => stateCell(j.state) },
  {
    key: 'ranks', label: 'Ranks', num: true, title: 'active / total ranks',
    value: (j) => j.ranks,
    render: (j) => `${j.active_ranks ?? 0} / ${j.ranks ?? 0}`,
  },
  {
    key: 'verdict', label: 'Verdict', pref: 'asc', title: 'Verdict over the selected window',
    value: (j, ctx) => agg(j, ctx)?.verdict ?? j.verdict,
    render: (j, ctx) => verdictCell(agg(j, ctx)?.verdict ?? j.verdict, agg(j, ctx)?.cause ?? j.cause),
  },
  {
    key: 'device_idle_ratio', label: 'Device idle', num: true, title: 'Mean over ranks',
    value: (j, ctx) => mean(j, ctx, 'device_idle_ratio'),
    render: (j, ctx) => ratioBar(mean(j, ctx, 'device_idle_ratio')),
  },
  {
    key: 'data_stall_ratio', label: 'Data stall', num: true, title: 'Mean over ranks',
    value: (j, ctx) => mean(j, ctx, 'data_stall_ratio'),
    render: (j, ctx) => ratioBar(mean(j, ctx, 'data_stall_ratio'), (agg(j, ctx)?.verdict ?? j.verdict) === 'data-starved' ? 'bad' : ''),
  },
  {
    key: 'data_stall_max', label: 'Stall (worst)', num: true, title: 'Data stall of the worst rank',
    value: (j, ctx) => max(j, ctx, 'data_stall_ratio'),
    render: (j, ctx) => {
      const s = agg(j, ctx)?.straggler_rank;
      return h('span', { title: s === null || s === undefined ? '' : `straggler: rank ${s}` }, ratioBar(max(j, ctx, 'data_stall_ratio')));
    },
  },
  {
    key: 'overlap_ratio', label: 'Overlap', num: true,
    value: (j, ctx) => mean(j, ctx, 'overlap_ratio'),
    render: (j, ctx) => ratioBar(mean(j, ctx, 'overlap_ratio')),
  },
  {
    key: 'steps_per_second', label: 'Steps/s', num: true, title: 'Mean over ranks',
    value: (j, ctx) => mean(j, ctx, 'steps_per_second'),
    render: (j, ctx) => rate(mean(j, ctx, 'steps_per_second')).replace('/s', ''),
  },
  { key: 'device_source', label: 'Device', pref: 'asc', value: (j) => j.device_source, render: (j) => deviceSourceCell(j.device_source) },
  {
    key: 'last_seen_ns', label: 'Last seen', num: true,
    value: (j) => j.last_seen_ns,
    render: (j, ctx) => ago(j.last_seen_ns, ctx.nowNs),
  },
];
