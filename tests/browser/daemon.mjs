// SPDX-License-Identifier: MIT
// Runs a real stallwatchd for a browser test: loopback ports chosen up front
// (so a restart can reuse them), a temp config with short windows and ticks,
// output captured for the failure message. Test-only.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, openSync, closeSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { stallwatchdPath } from './environment.mjs';

// A TCP port on 127.0.0.1 that was free a moment ago.
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Polls `fn` until it returns a truthy value; returns that value or throws
// `what` after `timeoutMs`.
export async function until(fn, what, timeoutMs = 15000, intervalMs = 50) {
  const deadline = Date.now() + timeoutMs;
  let last = null;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${last.message})` : ''}`);
    await sleep(intervalMs);
  }
}

// Windows short enough that a 30 s test sees them fill; the 5 s window is
// the verdict window, so verdicts settle within seconds.
export const kWindows = ['5s', '20s', '60s'];
export const kTickMs = 250;

const kConfig = `
[engine]
windows = [${kWindows.map((w) => `"${w}"`).join(', ')}]
verdict_window = "5s"
resolution = "1s"
lateness = "1s"
tick = "${kTickMs}ms"
timeline = "60s"

[log]
level = "warn"
`;

// One stallwatchd child of the test process: owns its temp dir (config, log)
// and the process; start() after stop() restarts it on the same ports.
// dispose() stops it and removes the temp dir. `extraArgs` go on its command
// line (e.g. a collector tree's endpoints).
export class Daemon {
  constructor(extraArgs = []) {
    this.extraArgs = extraArgs;
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'sw-browser-'));
    this.configPath = path.join(this.dir, 'stallwatchd.toml');
    this.logPath = path.join(this.dir, 'stallwatchd.log');
    writeFileSync(this.configPath, kConfig);
    this.child = null;
    this.httpPort = 0;
    this.ingestPort = 0;
  }

  get baseUrl() {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  get ingestEndpoint() {
    return `tcp://127.0.0.1:${this.ingestPort}`;
  }

  // Starts the daemon (on the same ports as before when restarted) and waits
  // for /healthz.
  async start() {
    if (!this.httpPort) this.httpPort = await freePort();
    if (!this.ingestPort) this.ingestPort = await freePort();
    const out = openSync(this.logPath, 'a');
    this.child = spawn(stallwatchdPath, ['--config', this.configPath, '--ingest', this.ingestEndpoint, '--http', `127.0.0.1:${this.httpPort}`, ...this.extraArgs],
      { stdio: ['ignore', out, out] });
    closeSync(out);
    const child = this.child;
    child.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
    await until(async () => {
      if (child.exitCode !== null) throw new Error(`stallwatchd exited: ${this.log()}`);
      return (await fetch(`${this.baseUrl}/healthz`)).ok;
    }, 'stallwatchd /healthz', 15000);
  }

  async stop() {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10000);
    await child.exited;
    clearTimeout(killer);
  }

  async getJson(target) {
    const res = await fetch(`${this.baseUrl}${target}`, { cache: 'no-store' });
    if (!res.ok) return null;
    return res.json();
  }

  log() {
    try {
      return readFileSync(this.logPath, 'utf8');
    } catch {
      return '';
    }
  }

  async dispose() {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
