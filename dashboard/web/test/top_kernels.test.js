// SPDX-License-Identifier: MIT
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasTopKernels, topKernelsCaption, topKernelsRows } from '../js/top_kernels.js';

const kernel = (name, device_seconds, count) => ({ name, device_seconds, count });
const row = {
  windows: { '10s': { wall_seconds: 10 }, '60s': { wall_seconds: 60 } },
  top_kernels: {
    '10s': {
      kernels: [kernel('ampere_sgemm_128x64_tn', 4.5, 9000), kernel('memcpy HtoD', 0.25, 50)],
      other: { device_seconds: 0.0005, count: 100 },
    },
    '60s': { kernels: [], other: { device_seconds: 0, count: 0 } },
  },
};

test('one row per kernel, most device time first as the API lists them, then the other kernels', () => {
  assert.deepEqual(topKernelsRows(row, '10s'), [
    { name: 'ampere_sgemm_128x64_tn', other: false, cells: ['4.50 s', '45.0%', '9,000', '500 µs'] },
    { name: 'memcpy HtoD', other: false, cells: ['250 ms', '2.5%', '50', '5.00 ms'] },
    { name: 'other kernels', other: true, cells: ['500 µs', '0.0%', '100', '5 µs'] },
  ]);
});

test('no "other kernels" row without work, no rows for a window without kernels', () => {
  assert.deepEqual(topKernelsRows(row, '60s'), []);
  assert.deepEqual(topKernelsRows(row, 'total'), []);
  assert.deepEqual(topKernelsRows({}, '10s'), []);
});

test('without the window\'s wall time the share is unknown, never a guess', () => {
  const [first] = topKernelsRows({ top_kernels: row.top_kernels }, '10s');
  assert.equal(first.cells[1], '—');
  assert.equal(first.cells[0], '4.50 s');
});

test('the section shows only for a rank with kernels, and says which window', () => {
  assert.equal(hasTopKernels(row), true);
  assert.equal(hasTopKernels({ top_kernels: { '10s': row.top_kernels['60s'] } }), false);
  assert.equal(hasTopKernels({ top_kernels: {} }), false);
  assert.equal(hasTopKernels({}), false);
  assert.equal(topKernelsCaption(row, '10s'), 'Top kernels by device time (10 s)');
  assert.equal(topKernelsCaption(row, 'total'), 'Top kernels by device time: kept per window, not for total');
});
