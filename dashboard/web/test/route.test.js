// SPDX-License-Identifier: MIT
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatRoute, parseRoute } from '../js/route.js';

test('a deep link names the job, rank, window and span', () => {
  assert.deepEqual(parseRoute('#/jobs/demo-slow?rank=3&window=60s&span=30'), { job: 'demo-slow', rank: 3, window: '60s', span: 30 });
});

test('the job list is the default route', () => {
  assert.deepEqual(parseRoute(''), { job: null, rank: null, window: null, span: null });
  assert.deepEqual(parseRoute('#/'), { job: null, rank: null, window: null, span: null });
  assert.equal(parseRoute('#/?window=total').window, 'total');
});

test('job names with URL characters survive a round trip', () => {
  const route = { job: 'run 7/a?b#c', rank: 0, window: '300s', span: 10 };
  assert.deepEqual(parseRoute(formatRoute(route)), route);
});

test('bad parameters are ignored, not trusted', () => {
  const r = parseRoute('#/jobs/x?rank=-1&window=forever&span=abc');
  assert.deepEqual(r, { job: 'x', rank: null, window: null, span: null });
  assert.equal(parseRoute('#/jobs/%E0%A4%A').job, null);
});

test('formatting leaves out what is not set', () => {
  assert.equal(formatRoute({ job: null, window: '60s' }), '#/?window=60s');
  assert.equal(formatRoute({ job: 'a', rank: null, window: null, span: null }), '#/jobs/a');
  assert.equal(formatRoute({ job: null, rank: 2, window: null, span: 30 }), '#/');
});
