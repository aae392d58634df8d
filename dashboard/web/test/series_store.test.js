// SPDX-License-Identifier: MIT
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SeriesStore } from '../js/series_store.js';

const body = {
  step_seconds: 1, t: [100, 101, 102],
  ranks: [{ rank: 0, values: [0.1, 0.2, null] }, { rank: 1, values: [0.5, 0.6, 0.7] }],
  mean: [0.3, 0.4, 0.7], max: [0.5, 0.6, 0.7],
};

test('history loads per metric and rank', () => {
  const s = new SeriesStore(10);
  s.load('data_stall_ratio', body);
  assert.deepEqual(s.columns('data_stall_ratio', 1), [[100, 101, 102], [0.3, 0.4, 0.7], [0.5, 0.6, 0.7], [0.5, 0.6, 0.7]]);
  assert.deepEqual(s.columns('data_stall_ratio', 0)[3], [0.1, 0.2, null]);
  assert.deepEqual(s.columns('data_stall_ratio', 9)[3], [null, null, null]);
  assert.deepEqual(s.columns('overlap_ratio', 0), [[], [], [], []]);
});

test('live points append, keep ranks aligned and skip ticks faster than the resolution', () => {
  const s = new SeriesStore(10);
  s.load('m', body);
  assert.equal(s.append('m', 102.2, 1, 1, new Map([[0, 0.9]])), false);
  assert.equal(s.append('m', 103, 0.8, 0.9, new Map([[0, 0.9], [2, 0.1]])), true);
  const [t, mean, max, r0] = s.columns('m', 0);
  assert.deepEqual(t, [100, 101, 102, 103]);
  assert.deepEqual(mean, [0.3, 0.4, 0.7, 0.8]);
  assert.deepEqual(max, [0.5, 0.6, 0.7, 0.9]);
  assert.deepEqual(r0, [0.1, 0.2, null, 0.9]);
  assert.deepEqual(s.columns('m', 1)[3], [0.5, 0.6, 0.7, null]);
  assert.deepEqual(s.columns('m', 2)[3], [null, null, null, 0.1]);
});

test('memory is bounded by the capacity', () => {
  const s = new SeriesStore(5);
  for (let i = 0; i < 50; i += 1) s.append('m', i, i, i, new Map([[0, i]]));
  const [t, mean, , r0] = s.columns('m', 0);
  assert.deepEqual(t, [45, 46, 47, 48, 49]);
  assert.deepEqual(mean, [45, 46, 47, 48, 49]);
  assert.deepEqual(r0, [45, 46, 47, 48, 49]);
});

test('a short or ragged response is padded, never misaligned', () => {
  const s = new SeriesStore(10);
  s.load('m', { step_seconds: 1, t: [1, 2, 3], mean: [0.1], max: [], ranks: [{ rank: 0, values: [1, 2, 3, 4] }] });
  assert.deepEqual(s.columns('m', 0), [[1, 2, 3], [0.1, null, null], [null, null, null], [1, 2, 3]]);
});

test('without a job start, history starts at the first value, not at the start of the requested span', () => {
  const s = new SeriesStore(10);
  s.load('m', {
    step_seconds: 1, t: [98, 99, 100, 101, 102],
    ranks: [{ rank: 0, values: [null, null, null, 0.2, null] }, { rank: 1, values: [null, null, 0.5, 0.6, 0.7] }],
    mean: [null, null, null, 0.4, 0.7], max: [null, null, null, 0.6, 0.7],
  });
  assert.deepEqual(s.columns('m', 1), [[100, 101, 102], [null, 0.4, 0.7], [null, 0.6, 0.7], [0.5, 0.6, 0.7]]);
  assert.deepEqual(s.columns('m', 0)[3], [null, 0.2, null]);
  s.load('m', { step_seconds: 1, t: [1, 2], ranks: [], mean: [null, null], max: [null, null] });
  assert.deepEqual(s.columns('m', 0), [[], [], [], []]);
});

test('with the job start, every metric\'s history starts there (charts stay aligned)', () => {
  const s = new SeriesStore(10);
  const body = {
    step_seconds: 1, t: [98, 99, 100, 101, 102],
    ranks: [{ rank: 0, values: [null, null, null, null, 0.5] }], mean: [null, null, null, null, 0.5], max: [null, null, null, null, 0.5],
  };
  s.load('overlap_ratio', body, 99.5);
  assert.deepEqual(s.columns('overlap_ratio', 0), [[100, 101, 102], [null, null, 0.5], [null, null, 0.5], [null, null, 0.5]]);
});

test('a pause of several steps puts a gap (null point) before the next live point', () => {
  const s = new SeriesStore(10);
  s.load('m', body);
  assert.equal(s.append('m', 106, 0.8, 0.9, new Map([[0, 0.9], [1, 0.2]])), true);
  assert.deepEqual(s.columns('m', 0), [[100, 101, 102, 103, 106], [0.3, 0.4, 0.7, null, 0.8], [0.5, 0.6, 0.7, null, 0.9], [0.1, 0.2, null, null, 0.9]]);
  assert.equal(s.append('m', 107, 0.8, 0.9, new Map()), true);
  assert.equal(s.columns('m', 0)[0].length, 6);
});
