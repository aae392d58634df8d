// SPDX-License-Identifier: MIT
// The deep-linkable part of the page state, kept in location.hash:
//   #/                                   job list
//   #/jobs/<job>?rank=3&window=60s&span=30   one job, selected rank, window, timeline span
// Pure parse/format; the caller owns reading and writing location.

export function parseRoute(hash) {
  const raw = String(hash ?? '').replace(/^#/, '');
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  const route = { job: null, rank: null, window: null, span: null };
  const m = /^\/jobs\/([^/]+)\/?$/.exec(path);
  if (m) {
    try {
      route.job = decodeURIComponent(m[1]);
    } catch {
      route.job = null;
    }
  }
  const rank = params.get('rank');
  if (rank !== null && /^\d+$/.test(rank)) route.rank = Number(rank);
  const win = params.get('window');
  if (win && /^(\d+s|total)$/.test(win)) route.window = win;
  const span = params.get('span');
  if (span !== null && /^\d+$/.test(span)) route.span = Number(span);
  return route;
}

export function formatRoute(route) {
  const params = new URLSearchParams();
  if (route.job !== null && route.job !== undefined) {
    if (route.rank !== null && route.rank !== undefined) params.set('rank', String(route.rank));
  }
  if (route.window) params.set('window', route.window);
  if (route.job && route.span) params.set('span', String(route.span));
  const path = route.job ? `/jobs/${encodeURIComponent(route.job)}` : '/';
  const query = params.toString();
  return `#${path}${query ? `?${query}` : ''}`;
}
