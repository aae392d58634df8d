// SPDX-License-Identifier: MIT
// The dashboard on a data-parallel job in lockstep (browser_feeder
// --period-ms, feeder.mjs kLockstepRanks): rank 1 fetches longer, so rank 0
// reaches each step's all_reduce 20 ms earlier and waits for it there. The
// job view names rank 1 as the one holding the job back, as the API does;
// the "Waiting for peers" column shows the API's peer wait per rank; and
// rank 0's timeline draws a "waiting for peers" lane whose regions are the
// API's peer_waits, which name rank 1.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchChromium, WatchedPage } from './chromium.mjs';
import { Daemon, until } from './daemon.mjs';
import { Feeders, kLockstepRanks } from './feeder.mjs';
import { agrees, parsePct, readJobView, readTimeline } from './page_reads.mjs';

const kJob = 'browser-lockstep';
const kJobPath = `/api/v1/jobs/${kJob}`;
const kWindow = '5s';

const daemon = new Daemon();
const feeders = new Feeders();
let browser = null;
let view = null;

// The job view and the API at the same tick (see live_job.test.mjs).
async function sameTick(page) {
  return until(async () => {
    const shown = await readJobView(page);
    const api = await daemon.getJson(kJobPath);
    return shown.tick !== null && api && api.tick === shown.tick ? { shown, api } : null;
  }, 'the page and the API at the same tick', 20000, 20);
}

describe('dashboard on a job in lockstep where one rank holds the others back', { concurrency: 1 }, () => {
  before(async () => {
    await daemon.start();
    browser = await launchChromium();
    feeders.start(daemon.ingestEndpoint, kJob, kLockstepRanks, 90);
    await until(async () => {
      const api = await daemon.getJson(kJobPath);
      return api && api.ranks.length === 2 && api.summary[kWindow].held_back?.ranks?.length > 0
        && api.ranks.every((r) => r.windows[kWindow].steps >= 10);
    }, 'the API to name who holds the job back', 40000, 200);
    view = await WatchedPage.open(browser, `${daemon.baseUrl}/#/jobs/${kJob}?window=${kWindow}&rank=0&span=10`);
  });

  after(async () => {
    await feeders.stop();
    if (browser) await browser.close();
    const output = [daemon.log().trim(), feeders.output.join('').trim()].filter(Boolean);
    if (output.length) console.log(`stallwatchd and feeder output:\n${output.join('\n')}`);
    await daemon.dispose();
  });

  test('the header names rank 1, as the API held_back does', async () => {
    const { shown, api } = await until(async () => {
      const t = await sameTick(view.page);
      return t.shown.heldBack ? t : null;
    }, 'the held-back line', 20000, 50);
    const held = api.summary[kWindow].held_back;
    assert.deepEqual(held.ranks.map((r) => r.rank), [1], 'the API names rank 1');
    assert.match(shown.heldBack, /^Held back by rank 1: /);
    assert.ok(shown.heldBack.includes(held.ranks[0].verdict), `the verdict: ${shown.heldBack}`);
    const cost = /costs the other rank ([\d.]+) ?% of their time waiting for peers/.exec(shown.heldBack);
    assert.ok(cost, shown.heldBack);
    assert.ok(agrees('pct', Number(cost[1]) / 100, held.cost_ratio), `cost: shows ${cost[1]} %, API ${held.cost_ratio}`);
    // 20 of every 160 ms (up to 40 when rank 1 runs late on a loaded machine).
    assert.ok(held.cost_ratio > 0.08 && held.cost_ratio < 0.27, `cost ratio ${held.cost_ratio}`);
  });

  test('the Waiting for peers column shows each rank\'s peer wait from the API', async () => {
    const { shown, api } = await sameTick(view.page);
    for (const r of api.ranks) {
      const row = shown.rows.find((x) => x.key === String(r.rank));
      assert.ok(row, `rank ${r.rank} has a row`);
      const m = r.windows[kWindow];
      const ratio = m.peer_wait_seconds / m.wall_seconds;
      const cell = row.cells.peer_wait_ratio;
      assert.equal(Number(cell.value), ratio, `rank ${r.rank}: data-value is peer_wait / wall`);
      assert.ok(agrees('pct', parsePct(cell.text), ratio), `rank ${r.rank}: shows "${cell.text}", API ${ratio}`);
    }
    const ratioOf = (rank) => Number(shown.rows.find((x) => x.key === String(rank)).cells.peer_wait_ratio.value);
    assert.ok(ratioOf(0) > 0.08, `rank 0 waits for its peer: ${ratioOf(0)}`);
    assert.ok(ratioOf(1) < 0.01, `rank 1 waits for nobody: ${ratioOf(1)}`);
  });

  test('rank 0\'s timeline draws the API\'s peer waits in a "waiting for peers" lane', async () => {
    // The page's span is its shortest, 10 s (the spans it offers are 10, 30
    // and 60 s): its last poll and a fresh API read of the same span hold the
    // same waits, give or take the ones a poll's edges move.
    const { tl, api } = await until(async () => {
      const t = await readTimeline(view.page);
      const a = await daemon.getJson(`${kJobPath}/ranks/0/timeline?seconds=10`);
      return t.title === 'Timeline · rank 0' && t.pixels.peer_wait > 50 && a.peer_waits.length >= 25
        && Math.abs(t.classes.peer_wait - a.peer_waits.length) <= 3 ? { tl: t, api: a } : null;
    }, 'rank 0 timeline with a peer-wait lane as the API lists them', 20000, 200).catch(async (err) => {
      throw new Error(`${err.message}: ${JSON.stringify(await readTimeline(view.page))}`);
    });
    // Each step rank 0 waits about 20 ms for rank 1; on a loaded machine the
    // scheduler stretches some steps, and one that delays rank 0 may make
    // rank 1 the one that waits, briefly.
    const ms = api.peer_waits.map((w) => (w.end_ns - w.start_ns) / 1e6).sort((a, b) => a - b);
    const median = ms[Math.floor(ms.length / 2)];
    assert.ok(median > 15 && median < 30, `rank 0's median wait is about 20 ms: ${median} ms`);
    const forRank1 = api.peer_waits.filter((w) => w.waiting_for === 1).length;
    assert.ok(forRank1 >= 0.9 * api.peer_waits.length, `${forRank1} of ${api.peer_waits.length} waits name rank 1`);
    console.log(`rank 0: ${tl.classes.peer_wait} peer-wait regions drawn, ${api.peer_waits.length} in the API`);
    const lane = await view.page.evaluate(() => document.querySelector('canvas.timeline-canvas').getAttribute('aria-label'));
    assert.match(lane, /lanes/);
    const slow = await daemon.getJson(`${kJobPath}/ranks/1/timeline?seconds=10`);
    const total = (waits) => waits.reduce((sum, w) => sum + (w.end_ns - w.start_ns), 0);
    assert.ok(total(slow.peer_waits) < 0.1 * total(api.peer_waits),
      `rank 1 hardly waits: ${total(slow.peer_waits) / 1e6} ms against rank 0's ${total(api.peer_waits) / 1e6} ms`);
    assert.deepEqual(view.unexpected(), [], 'no console errors');
    await view.screenshot('lockstep-job-view', { fullPage: true });
  });
});
