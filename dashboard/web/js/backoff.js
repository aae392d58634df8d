// SPDX-License-Identifier: MIT
// Reconnect delays for the WebSocket: exponential from `base` ms up to `max`
// ms, with +/- `jitter` so many tabs do not reconnect in lockstep after a
// daemon restart. Pure: pass `rand` in tests.
export function backoffDelay(attempt, { base = 500, max = 8000, jitter = 0.2 } = {}, rand = Math.random) {
  const n = Math.max(0, Math.min(attempt, 30));
  const raw = Math.min(max, base * 2 ** n);
  return Math.round(raw * (1 - jitter + 2 * jitter * rand()));
}
