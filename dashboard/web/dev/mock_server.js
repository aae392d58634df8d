// SPDX-License-Identifier: MIT
// Development only: serves the page from this folder and a simulated API
// (mock_model.js) shaped like docs/api.md, including the /api/v1/stream
// WebSocket, so the page can be developed without stallwatchd. The browser
// tests run against the real daemon, never this. /js/vocabulary.js is the
// module the build writes from the catalog (dashboard/web/CMakeLists.txt):
// build it first (cmake --build --preset default --target stallwatch_web_assets).
//   node dev/mock_server.js [--port 8788] [--empty] [--vocabulary <build>/dashboard/web/js/vocabulary.js]
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MockModel } from './mock_model.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const port = Number(args[args.indexOf('--port') + 1]) || 8788;
const model = new MockModel({ empty: args.includes('--empty') });
const vocabulary = args.includes('--vocabulary')
  ? args[args.indexOf('--vocabulary') + 1]
  : join(root, '../../build/default/dashboard/web/js/vocabulary.js');
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

function json(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function serveFile(res, path) {
  let file;
  if (path === '/' || path === '/index.html') file = join(root, 'index.html');
  else if (path.startsWith('/vendor/')) file = join(root, 'node_modules/uplot/dist', path.slice('/vendor/'.length));
  else if (path === '/js/vocabulary.js') file = vocabulary;
  else file = join(root, normalize(path).replace(/^(\.\.[/\\])+/, ''));
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' });
    res.end(body);
  } catch {
    const hint = file === vocabulary ? ` (${vocabulary} is written by the build: cmake --build --preset default --target stallwatch_web_assets, or pass --vocabulary FILE)` : '';
    json(res, 404, { error: `no such page asset: ${path}${hint}`, status: 404 });
  }
}

function api(res, url) {
  const p = url.pathname;
  let m;
  if (p === '/api/v1/jobs') return json(res, 200, { ...model.header(), jobs: model.jobSummaries() });
  if (p === '/api/v1/alerts') return json(res, 200, { alerts: model.alerts() });
  if ((m = /^\/api\/v1\/jobs\/([^/]+)$/.exec(p))) {
    const d = model.detail(decodeURIComponent(m[1]));
    return d ? json(res, 200, d) : json(res, 404, { error: `unknown job '${decodeURIComponent(m[1])}'`, status: 404 });
  }
  if ((m = /^\/api\/v1\/jobs\/([^/]+)\/series$/.exec(p))) {
    const s = model.series(decodeURIComponent(m[1]), url.searchParams.get('metric'), url.searchParams.get('window') ?? '10s', Number(url.searchParams.get('seconds') ?? 600));
    return s ? json(res, 200, s) : json(res, 404, { error: 'unknown job', status: 404 });
  }
  if ((m = /^\/api\/v1\/jobs\/([^/]+)\/ranks\/(\d+)\/timeline$/.exec(p))) {
    const seconds = Number(url.searchParams.get('seconds') ?? 10);
    if (!(seconds > 0 && seconds <= 60)) return json(res, 400, { error: 'seconds must be in (0, 60]', status: 400 });
    const t = model.timeline(decodeURIComponent(m[1]), Number(m[2]), seconds);
    return t ? json(res, 200, t) : json(res, 404, { error: 'unknown job or rank', status: 404 });
  }
  return json(res, 404, { error: `no API route ${p}`, status: 404 });
}

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  if (url.pathname.startsWith('/api/')) return api(res, url);
  if (url.pathname === '/healthz') return json(res, 200, { status: 'ok', version: 'mock', uptime_seconds: 0, tick: model.tick });
  return serveFile(res, url.pathname);
});

function frame(text) {
  const payload = Buffer.from(text);
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x81, n]) : n < 65536 ? Buffer.from([0x81, 126, n >> 8, n & 255]) : Buffer.concat([Buffer.from([0x81, 127]), (() => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(BigInt(n));
    return b;
  })()]);
  return Buffer.concat([head, payload]);
}

function readFrames(buf, onText) {
  while (buf.length >= 2) {
    let len = buf[1] & 127;
    let off = 2;
    if (len === 126) { len = buf.readUInt16BE(2); off = 4; } else if (len === 127) { len = Number(buf.readBigUInt64BE(2)); off = 10; }
    const masked = buf[1] & 128;
    const total = off + (masked ? 4 : 0) + len;
    if (buf.length < total) break;
    const mask = masked ? buf.subarray(off, off + 4) : null;
    const data = Buffer.from(buf.subarray(off + (masked ? 4 : 0), total));
    if (mask) for (let i = 0; i < data.length; i += 1) data[i] ^= mask[i % 4];
    if ((buf[0] & 15) === 1) onText(data.toString());
    if ((buf[0] & 15) === 8) return { buf: Buffer.alloc(0), closed: true };
    buf = buf.subarray(total);
  }
  return { buf, closed: false };
}

server.on('upgrade', (req, socket) => {
  if (!req.url.startsWith('/api/v1/stream')) return socket.destroy();
  const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
  let job = null;
  let pending = Buffer.alloc(0);
  socket.write(frame(JSON.stringify({ type: 'hello', version: 'mock', tick_ms: 500, windows: ['10s', '60s', '300s', 'total'], verdict_window: '60s' })));
  const timer = setInterval(() => {
    model.tick += 1;
    socket.write(frame(JSON.stringify({ type: 'tick', tick: model.tick, now_ns: model.nowNs(), jobs: model.jobSummaries(), alerts: model.alerts(), job: job ? model.detail(job) : null })));
  }, 500);
  socket.on('data', (chunk) => {
    const r = readFrames(Buffer.concat([pending, chunk]), (text) => {
      try {
        const msg = JSON.parse(text);
        if (msg.type === 'subscribe') job = msg.job ?? null;
      } catch {
        // Not JSON: ignored, like the daemon does.
      }
    });
    pending = r.buf;
    if (r.closed) socket.end();
  });
  const stop = () => clearInterval(timer);
  socket.on('close', stop);
  socket.on('error', stop);
});

server.listen(port, '127.0.0.1', () => console.log(`stallwatch mock API + page on http://127.0.0.1:${port}/`));
