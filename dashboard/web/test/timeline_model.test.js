// SPDX-License-Identifier: MIT
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTimeline, classCounts, coverage, hitRow, isDeviceLane, kMaxRows, laneLabel } from '../js/timeline_model.js';

// Real epoch nanoseconds exceed 2^53; offsets are multiples of U (~1 ms) so
// they stay exact in doubles, as they do at the resolution the page draws.
const from = 1_700_000_000_000_000_000;
const U = 2 ** 20;
const r = (s, e, extra) => ({ start_ns: from + s * U, end_ns: from + e * U, open: false, pid: 10, tid: 10, class: 'compute', cat: 'compute', name: 'x', ...extra });

const body = {
  from_ns: from, to_ns: from + 1000 * U,
  threads: [{ pid: 10, tid: 10, role: 'main' }, { pid: 11, tid: 11, role: 'worker' }],
  regions: [
    r(0, 400, { class: 'fetch', name: 'fetch.iter' }),
    r(400, 1000, { name: 'step', open: true }),
    r(450, 600, { name: 'forward' }),
    r(410, 900, { class: 'device_busy', tid: 99, name: 'kernel' }),
    r(0, 500, { pid: 11, tid: 11, class: 'app_io', name: 'getitem' }),
    r(100, 200, { pid: 10, tid: 12, class: 'mystery' }),
  ],
  marks: [{ ts_ns: from + 400 * U, pid: 10, tid: 10, name: 'epoch.start', value: 2 }],
};

test('lanes: device lane first, then threads, processes in API order', () => {
  const m = buildTimeline(body);
  assert.deepEqual(m.lanes.map((l) => `${l.group}/${l.label}`), [
    'main 10/device', 'main 10/main thread', 'main 10/thread 12', 'worker 11/main thread',
  ]);
  assert.equal(m.count, 6);
  assert.equal(m.span, 1000 * U);
});

test('nested regions go one row down; unknown classes become other', () => {
  const m = buildTimeline(body);
  const main = m.lanes[1];
  assert.deepEqual(main.rows.map((row) => row.map((x) => x.name)), [['fetch.iter', 'step'], ['forward']]);
  assert.equal(main.rows[0][1].open, true);
  assert.equal(m.lanes[2].rows[0][0].cls, 'other');
  assert.deepEqual(main.marks, [{ t: 400 * U, name: 'epoch.start', value: 2 }]);
});

test('hit testing finds the region under the pointer, shortest first', () => {
  const row = buildTimeline(body).lanes[1].rows[0];
  assert.equal(hitRow(row, 100 * U, 0).name, 'fetch.iter');
  assert.equal(hitRow(row, 700 * U, 0).name, 'step');
  assert.equal(hitRow([], 5 * U, 0), null);
  const gap = buildTimeline({ from_ns: from, to_ns: from + 100 * U, regions: [r(0, 10), r(50, 60, { name: 'y' })] }).lanes[0].rows[0];
  assert.equal(hitRow(gap, 30 * U, U), null);
  assert.equal(hitRow(gap, 49 * U, 2 * U).name, 'y');
});

test('deep nesting is capped so a pathological trace cannot grow lanes without bound', () => {
  const regions = Array.from({ length: 50 }, (_, i) => r(i, 1000 - i));
  const m = buildTimeline({ from_ns: from, to_ns: from + 1000 * U, regions });
  assert.equal(m.lanes[0].rows.length, kMaxRows);
  assert.equal(m.lanes[0].rows.flat().length, 50);
});

test('coverage is the union of a class over the span', () => {
  const m = buildTimeline(body);
  assert.equal(coverage(m.lanes, 'device_busy', m.span), 0.49);
  assert.equal(coverage(m.lanes, 'compute', m.span), 0.6);
});

test('an empty or missing body draws nothing and does not throw', () => {
  assert.deepEqual(buildTimeline({}).lanes, []);
  assert.deepEqual(buildTimeline(null).lanes, []);
});

test('each GPU lane gets its own lane, labelled by device and stream, above the threads', () => {
  const lane = 2 ** 31 + 7;
  const m = buildTimeline({
    from_ns: from, to_ns: from + 1000 * U,
    threads: [{ pid: 10, tid: 10, role: 'main' }, { pid: 10, tid: lane, role: 'main' }],
    regions: [r(0, 400, { class: 'fetch' }), r(400, 900, { class: 'device_busy', tid: lane }), r(0, 100, { class: 'app_io', tid: lane + 1 })],
    marks: [],
  });
  assert.deepEqual(m.lanes.map((l) => `${l.kind}/${l.label}`), ['device/GPU 0 · stream 7', 'device/GPU 0 · stream 8', 'thread/main thread']);
  assert.equal(m.lanes[0].tid, lane);
  assert.ok(isDeviceLane(lane) && !isDeviceLane(12345));
  assert.deepEqual(classCounts(m.lanes), { device_busy: 1, fetch: 1, app_io: 1 });
});

test('lane labels come from the API, ordered by device and stream, with host device_busy after them', () => {
  const lane = (device, stream) => 2 ** 31 + device * 2 ** 24 + stream;
  const m = buildTimeline({
    from_ns: from, to_ns: from + 1000 * U,
    threads: [
      { pid: 10, tid: 10, role: 'main' },
      { pid: 10, tid: lane(1, 3), role: 'main', device: 1, stream: 3, label: 'GPU 1 · stream 3' },
      { pid: 10, tid: lane(0, 13), role: 'main', device: 0, stream: 13, label: 'GPU 0 · stream 13' },
    ],
    regions: [
      r(0, 100, { class: 'device_busy', tid: lane(1, 3), name: 'k1' }),
      r(0, 100, { class: 'device_busy', tid: lane(0, 13), name: 'memcpy HtoD' }),
      r(0, 50, { class: 'device_busy', tid: 10, name: 'replayed kernel' }),
      r(0, 10, { class: 'device_busy', tid: lane(2, 2 ** 24 - 1), name: 'wide' }),
    ],
  });
  assert.deepEqual(m.lanes.map((l) => l.label), ['GPU 0 · stream 13', 'GPU 1 · stream 3', 'GPU 2 (device)', 'device', 'main thread']);
  assert.equal(m.lanes[3].tid, null);
  assert.equal(m.lanes[0].rows[0][0].name, 'memcpy HtoD');
  assert.equal(laneLabel(lane(5, 9)), 'GPU 5 · stream 9');
  assert.equal(laneLabel(lane(5, 9), 'from the API'), 'from the API');
});

test('peer waits: one "waiting for peers" lane first, in the first process group', () => {
  const m = buildTimeline({
    ...body,
    peer_waits: [
      { start_ns: from + 100 * U, end_ns: from + 150 * U, waiting_for: 3 },
      { start_ns: from + 700 * U, end_ns: from + 720 * U, waiting_for: 1 },
    ],
  });
  assert.deepEqual(m.lanes.map((l) => `${l.group}/${l.label}`).slice(0, 2), ['main 10/waiting for peers', 'main 10/device']);
  const lane = m.lanes[0];
  assert.equal(lane.kind, 'peers');
  assert.deepEqual(lane.rows[0].map((x) => [x.s / U, x.e / U, x.cls, x.name]), [
    [100, 150, 'peer_wait', 'waiting for rank 3'], [700, 720, 'peer_wait', 'waiting for rank 1'],
  ]);
  assert.equal(m.count, 6);  // regions only
  assert.ok(Math.abs(coverage(m.lanes, 'peer_wait', m.span) - 70 / 1000) < 1e-12);
  // Without peer_waits there is no such lane.
  assert.ok(buildTimeline(body).lanes.every((l) => l.kind !== 'peers'));
});
