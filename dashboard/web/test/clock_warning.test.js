// SPDX-License-Identifier: MIT
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clockWarningText } from '../js/clock_warning.js';

test('no rank past the threshold: no warning', () => {
  assert.equal(clockWarningText([{ rank: 0, clock_offset_seconds: 0.002, clock_warning: false }]), null);
  assert.equal(clockWarningText(undefined), null);
});

test('each warned rank is named with its host and offset', () => {
  const ranks = [
    { rank: 0, host: 'n1', clock_offset_seconds: 0, clock_warning: false },
    { rank: 2, host: 'n2', clock_offset_seconds: 90, clock_warning: true },
    { rank: 3, host: 'n3', clock_offset_seconds: -1.5, clock_warning: true },
  ];
  assert.equal(clockWarningText(ranks),
    'Clock off: rank 2 (n2) +1m 30s, rank 3 (n3) -1.50 s against the collector; job views correct for it.');
});

test('past three ranks the rest are counted', () => {
  const ranks = [0, 1, 2, 3, 4].map((rank) => ({ rank, host: 'h', clock_offset_seconds: 10, clock_warning: true }));
  assert.match(clockWarningText(ranks), /rank 2 \(h\) \+10\.0 s and 2 more against/);
});
