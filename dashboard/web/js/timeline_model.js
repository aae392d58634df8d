// SPDX-License-Identifier: MIT
// Turns a GET /timeline body into lanes ready to draw, processes in the order
// the API lists them (main first): first one lane per GPU lane (device and
// stream, labelled "GPU 0 · stream 7" as the API's `threads` entry says),
// then one "device" lane for device_busy regions recorded on host threads
// (e.g. replayed traces), then one lane per thread, like the GPU rows above
// the threads of an Nsight timeline. Nested regions are packed into rows
// (depth) so a fetch inside a loop iteration sits under it. Times become
// nanoseconds relative to `from_ns`. Pure data, no DOM; the canvas view
// draws and hit-tests what this returns. A rank whose collective calls
// waited for later peers (`peer_waits`) gets a "waiting for peers" lane
// first, in its first process's group.

export const kMaxRows = 6;

export const kClasses = ['device_busy', 'fetch', 'compute', 'comm', 'io', 'app_io', 'pipeline', 'other', 'peer_wait'];

// Device work is recorded under a device lane id instead of a thread id
// (sw_device_lane: high bit set, device in bits 24-30, stream in bits 0-23).
export function isDeviceLane(tid) {
  return Number(tid) >= 2 ** 31;
}

const kDeviceWideStream = 2 ** 24 - 1;

// The API's label for a lane, else the same text built from the tid.
export function laneLabel(tid, apiLabel) {
  if (typeof apiLabel === 'string' && apiLabel) return apiLabel;
  const device = Math.floor(Number(tid) / 2 ** 24) % 128;
  const stream = Number(tid) % 2 ** 24;
  return stream === kDeviceWideStream ? `GPU ${device} (device)` : `GPU ${device} · stream ${stream}`;
}

function threadLabel(pid, tid) {
  return tid === pid ? 'main thread' : `thread ${tid}`;
}

function laneKey(pid, tid, kind) {
  return `${kind}:${pid}:${tid ?? ''}`;
}

function normalise(r, from) {
  const cls = kClasses.includes(r.class) ? r.class : 'other';
  const s = Number(r.start_ns) - from;
  const e = Math.max(s, Number(r.end_ns) - from);
  return { s, e, open: Boolean(r.open), cls, name: r.name ?? '', cat: r.cat ?? '', pid: r.pid, tid: r.tid, classes: r.classes ?? [cls] };
}

// Greedy interval packing: regions sorted by start (longest first on ties) go
// to the first row whose last region has ended, so children land below parents.
function pack(regions) {
  regions.sort((a, b) => a.s - b.s || b.e - a.e);
  const rows = [];
  const rowEnd = [];
  for (const r of regions) {
    let d = rowEnd.findIndex((end) => end <= r.s);
    if (d < 0) {
      if (rows.length < kMaxRows) {
        d = rows.length;
        rows.push([]);
        rowEnd.push(-Infinity);
      } else {
        d = kMaxRows - 1;
      }
    }
    rows[d].push(r);
    rowEnd[d] = Math.max(rowEnd[d], r.e);
  }
  return rows.length ? rows : [[]];
}

export function buildTimeline(body) {
  const from = Number(body?.from_ns ?? 0);
  const to = Number(body?.to_ns ?? from);
  const roles = new Map();
  const order = [];
  const threadsByPid = new Map();
  const gpuLanesByPid = new Map();
  const apiLabels = new Map();
  const addThread = (pid, tid, role) => {
    if (!threadsByPid.has(pid)) {
      threadsByPid.set(pid, []);
      gpuLanesByPid.set(pid, []);
      order.push(pid);
    }
    if (role && !roles.has(pid)) roles.set(pid, role);
    if (tid === null) return;
    const list = isDeviceLane(tid) ? gpuLanesByPid.get(pid) : threadsByPid.get(pid);
    if (!list.includes(tid)) list.push(tid);
  };
  for (const t of body?.threads ?? []) {
    if (isDeviceLane(t.tid) && t.label) apiLabels.set(`${t.pid}:${t.tid}`, t.label);
    addThread(t.pid, t.tid, t.role);
  }

  const buckets = new Map();
  const bucket = (key) => {
    if (!buckets.has(key)) buckets.set(key, []);
    return buckets.get(key);
  };
  const devicePids = new Set();
  let count = 0;
  for (const raw of body?.regions ?? []) {
    const r = normalise(raw, from);
    count += 1;
    if (isDeviceLane(r.tid)) {
      addThread(r.pid, r.tid, null);
      bucket(laneKey(r.pid, r.tid, 'device')).push(r);
    } else if (r.cls === 'device_busy') {
      devicePids.add(r.pid);
      addThread(r.pid, null, null);
      bucket(laneKey(r.pid, null, 'device')).push(r);
    } else {
      addThread(r.pid, r.tid, null);
      bucket(laneKey(r.pid, r.tid, 'thread')).push(r);
    }
  }
  const marks = new Map();
  for (const m of body?.marks ?? []) {
    addThread(m.pid, m.tid, null);
    const key = laneKey(m.pid, m.tid, 'thread');
    if (!marks.has(key)) marks.set(key, []);
    marks.get(key).push({ t: Number(m.ts_ns) - from, name: m.name ?? '', value: m.value });
  }

  const lanes = [];
  const waits = (body?.peer_waits ?? []).map((w) => {
    const s = Number(w.start_ns) - from;
    const rank = w.waiting_for;
    return { s, e: Math.max(s, Number(w.end_ns) - from), open: false, cls: 'peer_wait', name: `waiting for rank ${rank}`, cat: 'collective', pid: order[0], tid: null, classes: ['peer_wait'], waitingFor: rank };
  });
  if (waits.length && order.length) {
    const pid = order[0];
    const group = `${roles.get(pid) ?? 'process'} ${pid}`;
    lanes.push({ key: `peers:${pid}`, pid, tid: null, kind: 'peers', group, label: 'waiting for peers', rows: pack(waits), marks: [] });
  }
  for (const pid of order) {
    const role = roles.get(pid) ?? 'process';
    const group = `${role} ${pid}`;
    for (const tid of gpuLanesByPid.get(pid).slice().sort((a, b) => a - b)) {
      const key = laneKey(pid, tid, 'device');
      if (!buckets.has(key)) continue;
      lanes.push({ key, pid, tid, kind: 'device', group, label: laneLabel(tid, apiLabels.get(`${pid}:${tid}`)), rows: pack(buckets.get(key)), marks: [] });
    }
    if (devicePids.has(pid)) {
      const key = laneKey(pid, null, 'device');
      lanes.push({ key, pid, tid: null, kind: 'device', group, label: 'device', rows: pack(buckets.get(key)), marks: [] });
    }
    const tids = threadsByPid.get(pid).slice().sort((a, b) => (a === pid ? -1 : b === pid ? 1 : a - b));
    for (const tid of tids) {
      const key = laneKey(pid, tid, 'thread');
      const label = threadLabel(pid, tid);
      const laneMarks = (marks.get(key) ?? []).sort((a, b) => a.t - b.t);
      lanes.push({ key, pid, tid, kind: 'thread', group, label, rows: pack(buckets.get(key) ?? []), marks: laneMarks });
    }
  }
  return { from, to, span: Math.max(1, to - from), lanes, count, truncated: Boolean(body?.truncated) };
}

// The region of `row` under time `t` (ns from `from`), allowing `tol` ns of
// slack so sub-pixel regions can still be hovered; the shortest one wins.
export function hitRow(row, t, tol) {
  let lo = 0;
  let hi = row.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (row[mid].s <= t + tol) lo = mid + 1;
    else hi = mid;
  }
  let best = null;
  for (let i = lo - 1; i >= 0 && i >= lo - 64; i -= 1) {
    const r = row[i];
    if (r.e + tol >= t && (!best || r.e - r.s < best.e - best.s)) best = r;
  }
  return best;
}

// How many regions of each class the lanes hold: { fetch: 12, compute: 36 }.
export function classCounts(lanes) {
  const counts = {};
  for (const lane of lanes) for (const row of lane.rows) for (const r of row) counts[r.cls] = (counts[r.cls] ?? 0) + 1;
  return counts;
}

// Share of [0, span) covered by regions of class `cls` in `lanes` (union), used
// for the legend's "device busy 38%" style summary.
export function coverage(lanes, cls, span) {
  const iv = [];
  for (const lane of lanes) for (const row of lane.rows) for (const r of row) if (r.cls === cls) iv.push([Math.max(0, r.s), Math.min(span, r.e)]);
  iv.sort((a, b) => a[0] - b[0]);
  let total = 0;
  let cs = -Infinity;
  let ce = -Infinity;
  for (const [s, e] of iv) {
    if (s > ce) {
      if (ce > cs) total += ce - cs;
      cs = s;
      ce = e;
    } else if (e > ce) {
      ce = e;
    }
  }
  if (ce > cs) total += ce - cs;
  return span > 0 ? total / span : 0;
}
