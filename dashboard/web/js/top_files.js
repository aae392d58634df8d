// SPDX-License-Identifier: MIT
// A rank row's top files by I/O time (docs/api.md, "Top files by I/O time")
// as the rank card's table shows them. Pure functions of the API objects, no DOM.
import { count, seconds, windowLabel } from './format.js';
import { bytes } from './gpu_counters.js';

export const kTopFilesColumns = ['file', 'I/O time', 'read', 'written', 'calls'];

export const kTopFilesNote = 'Time inside POSIX and stdio calls on each file (open, read, write, seek, close…), '
  + 'each call counted whole in the window where it ended; "other files" sums every file past the ones listed '
  + '(and, for the total since the start, the files past the first ones the rank read, 1024 by default).';

const cells = (f) => [seconds(f.io_seconds), bytes(f.read_bytes), bytes(f.write_bytes), count(f.ops)];

// Whether any window of the row lists a file: the rank's I/O is captured per file.
export function hasTopFiles(row) {
  return Object.values(row?.top_files ?? {}).some((t) => (t?.files ?? []).length > 0);
}

// The table's rows for `window`: one per file, most time first, then
// "other files" when it holds calls. [] when the window keeps no files.
export function topFilesRows(row, window) {
  const top = row?.top_files?.[window];
  if (!top) return [];
  const rows = (top.files ?? []).map((f) => ({ path: f.path, other: false, cells: cells(f) }));
  if ((top.other?.ops ?? 0) > 0) rows.push({ path: 'other files', other: true, cells: cells(top.other) });
  return rows;
}

// The caption: "Top files by I/O time (10 s)" or "(since start)" for the
// total, or why the window has none (a collector without that window's).
export function topFilesCaption(row, window) {
  const label = window === 'total' ? 'since start' : windowLabel(window);
  if (!row?.top_files?.[window]) return `Top files by I/O time: kept per window, not for ${label}`;
  return `Top files by I/O time (${label})`;
}
