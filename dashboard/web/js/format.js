// SPDX-License-Identifier: MIT
// Number and time formatting for humans. Pure functions; every one returns
// DASH for null, undefined or non-finite input so the page never shows "NaN".

export const DASH = '—';

function missing(v) {
  return v === null || v === undefined || !Number.isFinite(v);
}

// 0.6134 -> "61.3%"
export function pct(ratio, digits = 1) {
  if (missing(ratio)) return DASH;
  return `${(ratio * 100).toFixed(digits)}%`;
}

function fixedSig(v) {
  const a = Math.abs(v);
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

// Seconds in the unit a person reads fastest: "420 µs", "12.5 ms", "4.21 s", "3m 05s", "1h 02m".
export function seconds(s) {
  if (missing(s)) return DASH;
  if (s === 0) return '0 s';
  const a = Math.abs(s);
  const sign = s < 0 ? '-' : '';
  if (a < 1e-3) return `${sign}${(a * 1e6).toFixed(0)} µs`;
  if (a < 1) return `${sign}${fixedSig(a * 1e3)} ms`;
  if (a < 60) return `${sign}${fixedSig(a)} s`;
  if (a < 3600) {
    const m = Math.floor(a / 60);
    return `${sign}${m}m ${String(Math.floor(a - m * 60)).padStart(2, '0')}s`;
  }
  const h = Math.floor(a / 3600);
  const m = Math.floor((a - h * 3600) / 60);
  return `${sign}${h}h ${String(m).padStart(2, '0')}m`;
}

// Events per second: "0.85/s", "12.4/s", "1.2k/s", "3.4M/s".
export function rate(v) {
  if (missing(v)) return DASH;
  const a = Math.abs(v);
  if (a >= 1e6) return `${(v / 1e6).toFixed(1)}M/s`;
  if (a >= 1e4) return `${(v / 1e3).toFixed(0)}k/s`;
  if (a >= 1e3) return `${(v / 1e3).toFixed(1)}k/s`;
  return `${fixedSig(v)}/s`;
}

// Bytes per second: "512 B/s", "1.5 KiB/s", "268.4 MiB/s", "1.2 GiB/s".
export function bytesRate(v) {
  if (missing(v)) return DASH;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let x = v;
  let u = 0;
  while (Math.abs(x) >= 1024 && u < units.length - 1) {
    x /= 1024;
    u += 1;
  }
  return `${u === 0 ? Math.round(x) : x.toFixed(1)} ${units[u]}/s`;
}

// Integer counts with thousands separators: 1234567 -> "1,234,567".
export function count(n) {
  if (missing(n)) return DASH;
  return Math.round(n).toLocaleString('en-US');
}

// A rank's progress: "3 · 1,200"; the API reports -1 for an epoch or step
// not seen yet (e.g. a collector restarted mid-epoch), shown as "—".
export function epochStep(epoch, step) {
  const part = (v) => (missing(v) || v < 0 ? DASH : count(v));
  return `${part(epoch)} · ${part(step)}`;
}

// How long ago `ns` was, relative to `nowNs` (both Unix epoch nanoseconds).
export function ago(ns, nowNs) {
  if (missing(ns) || missing(nowNs) || ns <= 0) return DASH;
  const s = Math.max(0, (nowNs - ns) / 1e9);
  if (s < 1) return 'now';
  if (s < 60) return `${Math.floor(s)} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

// Wall-clock time of day for Unix seconds, local time: "14:03:27".
export function clock(unixSeconds) {
  if (missing(unixSeconds)) return DASH;
  const d = new Date(unixSeconds * 1000);
  return [d.getHours(), d.getMinutes(), d.getSeconds()]
    .map((x) => String(x).padStart(2, '0'))
    .join(':');
}

// A window name as a label: "10s" -> "10 s", "total" -> "total".
export function windowLabel(name) {
  const m = /^(\d+)s$/.exec(name ?? '');
  return m ? `${m[1]} s` : String(name ?? DASH);
}
