// SPDX-License-Identifier: MIT
// Sidebar card for the selected rank: progress, counters, the device source
// and NVML readings per GPU (over `window`), its top files by I/O time and
// top kernels by device time (over `window`), and its processes (main and
// data-loader workers) from the RankRow. Rebuilt on each render.
import { h, replaceChildren } from './dom.js';
import { ago, count, epochStep, pct } from './format.js';
import { gpuDeviceLines, kNvmlNote, nvmlUtilText } from './gpu_counters.js';
import { hasTopFiles, kTopFilesColumns, kTopFilesNote, topFilesCaption, topFilesRows } from './top_files.js';
import { hasTopKernels, kTopKernelsColumns, kTopKernelsNote, topKernelsCaption, topKernelsRows } from './top_kernels.js';
import { kProxyNote } from './verdict.js';

function gpuSection(rank, window) {
  const nvml = nvmlUtilText(rank, window);
  if (!nvml) return null;
  const idle = rank.windows?.[window]?.device_idle_ratio;
  return h('div', { class: 'gpu-counters', dataset: { devices: String(rank.gpu_counters.length) } },
    h('p', { class: 'nvml', title: kNvmlNote }, `${nvml} · device idle ${pct(idle)} (${rank.device_source ?? '—'})`),
    h('ul', { class: 'gpu-lines' }, gpuDeviceLines(rank, window).map((line) => h('li', { title: kNvmlNote }, line))));
}

function topFilesSection(rank, window) {
  if (!hasTopFiles(rank)) return null;
  const rows = topFilesRows(rank, window);
  return h('table', { class: 'procs top-files', title: kTopFilesNote },
    h('caption', {}, topFilesCaption(rank, window)),
    h('thead', {}, h('tr', {}, kTopFilesColumns.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows.map((r) => h('tr', { class: r.other ? 'muted' : null },
      h('td', { class: 'path', title: r.path }, r.path), ...r.cells.map((c) => h('td', {}, c))))));
}

function topKernelsSection(rank, window) {
  if (!hasTopKernels(rank)) return null;
  const rows = topKernelsRows(rank, window);
  return h('table', { class: 'procs top-kernels', title: kTopKernelsNote },
    h('caption', {}, topKernelsCaption(rank, window)),
    h('thead', {}, h('tr', {}, kTopKernelsColumns.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows.map((r) => h('tr', { class: r.other ? 'muted' : null },
      h('td', { class: 'name', title: r.name }, r.name), ...r.cells.map((c) => h('td', {}, c))))));
}

export function renderRankDetail(el, rank, nowNs, window) {
  el.hidden = !rank;
  if (!rank) return;
  const kv = (k, v) => [h('dt', {}, k), h('dd', {}, v)];
  const procs = (rank.processes ?? []).slice().sort((a, b) => (a.role === 'main' ? 0 : 1) - (b.role === 'main' ? 0 : 1));
  replaceChildren(el,
    h('div', { class: 'panel-head' }, h('h2', {}, `Rank ${rank.rank}`), h('span', { class: 'spacer' }), h('span', { class: 'muted' }, `last data ${ago(rank.last_seen_ns, nowNs)}`)),
    h('div', { class: 'panel-body' },
      h('dl', { class: 'kv' },
        kv('epoch · step', epochStep(rank.epoch, rank.step)),
        kv('device source', h('span', { title: rank.device_source === 'compute-proxy' ? kProxyNote : null }, rank.device_source ?? '—')),
        kv('events received', count(rank.events_received)),
        kv('batches received', count(rank.batches_received)),
        kv('dropped by agent', count(rank.agent_dropped)),
        kv('lost batches', count(rank.lost_batches)),
        kv('late events', count(rank.late_events)),
        kv('unpaired events', count(rank.unpaired_events))),
      gpuSection(rank, window),
      topFilesSection(rank, window),
      topKernelsSection(rank, window),
      procs.length
        ? h('table', { class: 'procs' },
          h('caption', { class: 'visually-hidden' }, `Processes of rank ${rank.rank}`),
          h('thead', {}, h('tr', {}, ['pid', 'role', 'host', 'device', 'open'].map((c) => h('th', { scope: 'col' }, c)))),
          h('tbody', {}, procs.map((p) => h('tr', { class: p.finished ? 'muted' : null },
            h('td', {}, String(p.pid)), h('td', {}, p.role ?? '—'), h('td', {}, p.host ?? '—'),
            h('td', {}, p.device_source ?? '—'), h('td', {}, count(p.open_regions))))))
        : null));
}
