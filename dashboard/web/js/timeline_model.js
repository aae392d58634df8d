// Turns a GET /timeline body into lanes ready to draw: one "device" lane per
// process that has device_busy regions (the GPU row of an Nsight timeline),
// then one lane per thread, processes in the order the API lists them (main
// first). Nested regions are packed into rows (depth) so a fetch inside a loop
// iteration sits under it. Times become nanoseconds relative to `from_ns`.
// Pure data, no DOM; the canvas view draws and hit-tests what this returns.

export const kMaxRows = 6;

export const kClasses = ['device_busy', 'fetch', 'compute', 'comm', 'io', 'app_io', 'pipeline', 'other'];

// Device work is recorded under a device lane id instead of a thread id
// (sw_device_lane: high bit set, device in bits 24-30, stream in bits 0-23).
export function isDeviceLane(tid) {
  return Number(tid) >= 2 ** 31;
}

function threadLabel(pid, tid) {
  if (tid === pid) return 'main thread';
  if (isDeviceLane(tid)) return `GPU ${Math.floor(tid / 2 ** 24) % 128} stream ${tid % 2 ** 24}`;
  return `thread ${tid}`;
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
  const addThread = (pid, tid, role) => {
    if (!threadsByPid.has(pid)) {
      threadsByPid.set(pid, []);
      order.push(pid);
    }
    if (role && !roles.has(pid)) roles.set(pid, role);
    const list = threadsByPid.get(pid);
    if (tid !== null && !list.includes(tid)) list.push(tid);
  };
  // A device lane listed as a thread gets no thread lane of its own: its
  // device_busy regions are drawn in the process's device lane.
  for (const t of body?.threads ?? []) addThread(t.pid, isDeviceLane(t.tid) ? null : t.tid, t.role);

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
    if (r.cls === 'device_busy') {
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
  for (const pid of order) {
    const role = roles.get(pid) ?? 'process';
    const group = `${role} ${pid}`;
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
