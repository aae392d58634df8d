// SPDX-License-Identifier: MIT
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextSort, sortRows } from '../js/table_sort.js';

const rows = [
  { rank: 0, stall: 0.2, name: 'b' },
  { rank: 1, stall: null, name: 'a10' },
  { rank: 2, stall: 0.7, name: 'a9' },
  { rank: 3, stall: 0.2, name: 'c' },
];
const ranks = (list) => list.map((r) => r.rank);

test('numbers sort both ways with missing values last', () => {
  assert.deepEqual(ranks(sortRows(rows, (r) => r.stall, 'desc')), [2, 0, 3, 1]);
  assert.deepEqual(ranks(sortRows(rows, (r) => r.stall, 'asc')), [0, 3, 2, 1]);
});

test('equal keys keep their order (stable)', () => {
  assert.deepEqual(ranks(sortRows(rows, (r) => r.stall, 'asc')).slice(0, 2), [0, 3]);
});

test('strings sort naturally', () => {
  assert.deepEqual(sortRows(rows, (r) => r.name, 'asc').map((r) => r.name), ['a9', 'a10', 'b', 'c']);
});

test('the input is not modified', () => {
  const copy = rows.slice();
  sortRows(rows, (r) => r.stall, 'desc');
  assert.deepEqual(rows, copy);
});

test('clicking a new column uses its preferred direction, the same column flips', () => {
  assert.deepEqual(nextSort(null, 'stall'), { key: 'stall', dir: 'desc' });
  assert.deepEqual(nextSort({ key: 'stall', dir: 'desc' }, 'stall'), { key: 'stall', dir: 'asc' });
  assert.deepEqual(nextSort({ key: 'stall', dir: 'asc' }, 'rank', 'asc'), { key: 'rank', dir: 'asc' });
});
