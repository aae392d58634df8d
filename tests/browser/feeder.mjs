// SPDX-License-Identifier: MIT
// Starts browser_feeder processes (one per rank of a data-starved job, real
// agent library) against a daemon's ingest endpoint, and stops them with
// SIGTERM so each sends its final batch. Test-only.
import { spawn } from 'node:child_process';
import { feederPath } from './environment.mjs';

// Rank 0 reports device activity (CUDA-event spans, like stallwatch.torch)
// and its worker's reads as calls on one file (its top file by I/O time);
// rank 1 has no device signal (compute proxy) and waits longer for data, so
// it is the straggler.
export const kStarvedRanks = [
  { rank: 0, fetchMs: 60, computeMs: 40, device: true, file: '/data/browser/shard-0.bin' },
  { rank: 1, fetchMs: 90, computeMs: 30, device: false },
];

// A data-parallel job in lockstep (browser_feeder --period-ms): every 160 ms
// step ends with an all_reduce that ends 140 ms into the step for both
// ranks. Rank 1 fetches 30 ms longer, so rank 0 reaches the all_reduce 20 ms
// before it and waits there: 12.5 % of its time, held back by rank 1.
export const kLockstepRanks = [
  { rank: 0, fetchMs: 40, computeMs: 60, device: true, periodMs: 160, syncMs: 140 },
  { rank: 1, fetchMs: 70, computeMs: 50, device: false, periodMs: 160, syncMs: 140 },
];

// Owns the feeder child processes it started; stop() ends them all (SIGTERM,
// then waits), keeping what they printed in `output` for failure messages.
export class Feeders {
  constructor() {
    this.children = [];
    this.output = [];
  }

  start(endpoint, job, ranks = kStarvedRanks, seconds = 170) {
    for (const r of ranks) {
      const args = ['--collector', endpoint, '--job', job, '--rank', String(r.rank), '--seconds', String(seconds),
        '--fetch-ms', String(r.fetchMs), '--compute-ms', String(r.computeMs), '--batch-size', '32', '--steps-per-epoch', '40'];
      if (r.device) args.push('--device');
      if (r.file) args.push('--file', r.file);
      if (r.periodMs) args.push('--period-ms', String(r.periodMs), '--sync-ms', String(r.syncMs));
      const child = spawn(feederPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, STALLWATCH_LOG: '1' } });
      child.stdout.on('data', (d) => this.output.push(`rank ${r.rank}: ${d}`));
      child.stderr.on('data', (d) => this.output.push(`rank ${r.rank}: ${d}`));
      child.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
      this.children.push(child);
    }
  }

  async stop() {
    const live = this.children.filter((c) => c.exitCode === null && c.signalCode === null);
    for (const c of live) c.kill('SIGTERM');
    await Promise.all(live.map((c) => c.exited));
    this.children = [];
  }
}
