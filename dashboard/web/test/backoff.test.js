// SPDX-License-Identifier: MIT
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffDelay } from '../js/backoff.js';

test('reconnect delays double up to the cap', () => {
  const mid = () => 0.5;
  assert.deepEqual([0, 1, 2, 3, 4, 5, 10].map((a) => backoffDelay(a, {}, mid)), [500, 1000, 2000, 4000, 8000, 8000, 8000]);
});

test('jitter stays within +/-20%', () => {
  assert.equal(backoffDelay(1, {}, () => 0), 800);
  assert.equal(backoffDelay(1, {}, () => 1), 1200);
});
