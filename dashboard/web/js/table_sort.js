// SPDX-License-Identifier: MIT
// Sorting for the job and rank tables. Missing values (null, undefined, NaN)
// always sort last, whichever the direction, so "—" cells never crowd the top.

function isMissing(v) {
  return v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v));
}

export function compareValues(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), 'en', { numeric: true });
}

// Returns a new array sorted by `key(row)`; `dir` is 'asc' or 'desc'.
// Stable: rows with equal keys keep their order.
export function sortRows(rows, key, dir) {
  const sign = dir === 'desc' ? -1 : 1;
  return rows
    .map((row, i) => ({ row, i, v: key(row) }))
    .sort((x, y) => {
      const xm = isMissing(x.v);
      const ym = isMissing(y.v);
      if (xm || ym) return xm === ym ? x.i - y.i : xm ? 1 : -1;
      return sign * compareValues(x.v, y.v) || x.i - y.i;
    })
    .map((e) => e.row);
}

// The next sort state after clicking column `key`: a new column starts in its
// preferred direction, the same column flips.
export function nextSort(current, key, preferred = 'desc') {
  if (current && current.key === key) return { key, dir: current.dir === 'asc' ? 'desc' : 'asc' };
  return { key, dir: preferred };
}
