// SPDX-License-Identifier: MIT
// REST client for the stallwatchd API (docs/api.md). Same origin as the page.
// When the daemon needs a bearer token, open the page once as /?token=...:
// the token is kept for this tab (sessionStorage) and sent as a header here
// and as ?token= on the WebSocket.

const kTokenKey = 'stallwatch.token';

export function authToken() {
  const fromUrl = new URLSearchParams(location.search).get('token');
  if (fromUrl) {
    sessionStorage.setItem(kTokenKey, fromUrl);
    return fromUrl;
  }
  return sessionStorage.getItem(kTokenKey);
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function getJson(path, signal) {
  const headers = { Accept: 'application/json' };
  const token = authToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, { headers, signal, cache: 'no-store' });
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    try {
      const body = await res.json();
      if (body && body.error) message = body.error;
    } catch {
      // The body was not JSON; the status line says enough.
    }
    throw new ApiError(res.status, message);
  }
  return res.json();
}

const job = (name) => `/api/v1/jobs/${encodeURIComponent(name)}`;

export const api = {
  jobs: (signal) => getJson('/api/v1/jobs', signal),
  job: (name, signal) => getJson(job(name), signal),
  alerts: (signal) => getJson('/api/v1/alerts', signal),
  series: (name, metric, window, seconds, signal) =>
    getJson(`${job(name)}/series?metric=${encodeURIComponent(metric)}&window=${encodeURIComponent(window)}&seconds=${seconds}`, signal),
  timeline: (name, rank, seconds, signal) => getJson(`${job(name)}/ranks/${rank}/timeline?seconds=${seconds}`, signal),
};

export function streamUrl() {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const token = authToken();
  return `${proto}//${location.host}/api/v1/stream${token ? `?token=${encodeURIComponent(token)}` : ''}`;
}
