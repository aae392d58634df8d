// SPDX-License-Identifier: MIT
// A rank row's top kernels by device time (docs/api.md, "Top kernels by
// device time") as the rank card's table shows them. Pure functions of the
// API objects, no DOM.
import { count, pct, seconds, windowLabel } from './format.js';

export const kTopKernelsColumns = ['kernel', 'device time', 'share', 'count', 'mean'];

export const kTopKernelsNote = 'Device time of each kernel, memcpy and memset recorded by CUPTI, '
  + 'each counted whole in the window where it ended; "share" is of the window\'s wall time (streams '
  + 'running at once add up), "other kernels" sums every name past the top 10.';

function cells(k, wallSeconds) {
  const share = wallSeconds > 0 ? k.device_seconds / wallSeconds : null;
  const mean = k.count > 0 ? k.device_seconds / k.count : null;
  return [seconds(k.device_seconds), pct(share), count(k.count), seconds(mean)];
}

// Whether any window of the row lists a kernel: the rank's device work is
// recorded per kernel (CUPTI).
export function hasTopKernels(row) {
  return Object.values(row?.top_kernels ?? {}).some((t) => (t?.kernels ?? []).length > 0);
}

// The table's rows for `window`: one per kernel, most device time first, then
// "other kernels" when it holds any. [] when the window keeps none.
export function topKernelsRows(row, window) {
  const top = row?.top_kernels?.[window];
  if (!top) return [];
  const wall = row?.windows?.[window]?.wall_seconds ?? null;
  const rows = (top.kernels ?? []).map((k) => ({ name: k.name, other: false, cells: cells(k, wall) }));
  if ((top.other?.count ?? 0) > 0) rows.push({ name: 'other kernels', other: true, cells: cells(top.other, wall) });
  return rows;
}

// The caption: "Top kernels by device time (10 s)", or why the window has none.
export function topKernelsCaption(row, window) {
  if (!row?.top_kernels?.[window]) return `Top kernels by device time: kept per window, not for ${windowLabel(window)}`;
  return `Top kernels by device time (${windowLabel(window)})`;
}
