// SPDX-License-Identifier: MIT
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rasterRow } from '../js/timeline_raster.js';

const reg = (s, e, cls) => ({ s, e, cls });

test('wide regions become runs of their class, gaps stay empty', () => {
  const runs = rasterRow([reg(0, 30, 'fetch'), reg(30, 50, 'compute'), reg(70, 100, 'fetch')], 100, 100);
  assert.deepEqual(runs, [{ cls: 'fetch', x: 0, w: 30 }, { cls: 'compute', x: 30, w: 20 }, { cls: 'fetch', x: 70, w: 30 }]);
});

test('sub-pixel regions: each column shows the class that covers most of it', () => {
  // 100 steps of 10 ns in 100 px at 1000 ns span: a step is one pixel, 6 ns
  // fetch then 3 short compute regions (4 ns in all). Fetch wins every column.
  const row = [];
  for (let i = 0; i < 100; i += 1) {
    const t = i * 10;
    row.push(reg(t, t + 6, 'fetch'), reg(t + 6, t + 7.6, 'compute'), reg(t + 7.6, t + 9.6, 'compute'), reg(t + 9.6, t + 10, 'compute'));
  }
  assert.deepEqual(rasterRow(row, 1000, 100), [{ cls: 'fetch', x: 0, w: 100 }]);
});

test('a region far narrower than a pixel is still drawn when alone in its column', () => {
  assert.deepEqual(rasterRow([reg(500, 500.01, 'device_busy')], 1000, 100), [{ cls: 'device_busy', x: 50, w: 1 }]);
  assert.deepEqual(rasterRow([reg(500, 500, 'fetch')], 1000, 100), [{ cls: 'fetch', x: 50, w: 1 }]);
});

test('regions outside the span are clipped, not drawn', () => {
  assert.deepEqual(rasterRow([reg(-50, 10, 'compute'), reg(95, 200, 'fetch'), reg(300, 400, 'io')], 100, 100),
    [{ cls: 'compute', x: 0, w: 10 }, { cls: 'fetch', x: 95, w: 5 }]);
});
