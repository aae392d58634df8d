// SPDX-License-Identifier: MIT
// The dashboard of a collector tree's head on a rank it does not hold: a
// node stallwatchd (fed by browser_feeder, the lockstep job of
// peers.test.mjs) reports to a head over a local plaintext tree endpoint.
// The head's page opens rank 0, whose timeline the head fetches from the
// node on demand; the page draws it, and what it draws is the node's own
// timeline: its regions, and its waits for the peer. Its charts' series
// come from the node too.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchChromium, WatchedPage } from './chromium.mjs';
import { Daemon, freePort, until } from './daemon.mjs';
import { Feeders, kLockstepRanks } from './feeder.mjs';
import { readTimeline } from './page_reads.mjs';

const kJob = 'browser-remote';
const kJobPath = `/api/v1/jobs/${kJob}`;
const kSpan = 10;

let head = null;
let node = null;
const feeders = new Feeders();
let browser = null;
let view = null;

describe('a tree head\'s dashboard draws a remote rank\'s timeline from its node', { concurrency: 1 }, () => {
  before(async () => {
    const treePort = await freePort();
    head = new Daemon(['--tree-plaintext', `tcp://127.0.0.1:${treePort}`]);
    await head.start();
    node = new Daemon(['--upstream', `tcp://127.0.0.1:${treePort}`, '--node', 'node-a']);
    await node.start();
    browser = await launchChromium();
    feeders.start(node.ingestEndpoint, kJob, kLockstepRanks, 90);
    await until(async () => {
      const api = await head.getJson(kJobPath);
      return api && api.ranks.length === 2 && api.ranks.every((r) => r.windows['5s'].steps >= 20);
    }, 'the head to serve the node\'s two ranks', 40000, 200);
    view = await WatchedPage.open(browser, `${head.baseUrl}/#/jobs/${kJob}?window=5s&rank=0&span=${kSpan}`);
  });

  after(async () => {
    await feeders.stop();
    if (browser) await browser.close();
    const output = [head?.log().trim(), node?.log().trim(), feeders.output.join('').trim()].filter(Boolean);
    if (output.length) console.log(`stallwatchd and feeder output:\n${output.join('\n')}`);
    await head?.dispose();
    await node?.dispose();
  });

  test('the head holds no timeline of its own: it answers with the node\'s', async () => {
    const status = await head.getJson('/api/v1/status');
    assert.equal(status.tree.nodes, 1);
    assert.equal(status.tree.remote_ranks, 2);
    // Read the head (which fetches from the node), then the node: every
    // closed region of the head's answer inside the node's later span is in
    // the node's answer, field by field.
    const path = `${kJobPath}/ranks/0/timeline?seconds=${kSpan}`;
    const viaHead = await head.getJson(path);
    const own = await node.getJson(path);
    assert.ok(viaHead.regions.length > 20, `${viaHead.regions.length} regions`);
    const ownRegions = new Set(own.regions.map((r) => JSON.stringify(r)));
    const shared = viaHead.regions.filter((r) => !r.open && r.start_ns >= own.from_ns);
    assert.ok(shared.length > 0.5 * viaHead.regions.length, `${shared.length} of ${viaHead.regions.length}`);
    for (const r of shared) assert.ok(ownRegions.has(JSON.stringify(r)), `region ${JSON.stringify(r)} is the node's`);
    assert.ok(viaHead.peer_waits.length > 10, `${viaHead.peer_waits.length} waits`);
    assert.ok(viaHead.peer_waits.filter((w) => w.waiting_for === 1).length >= 0.9 * viaHead.peer_waits.length);
    // The status is published every tick.
    const tree = await until(async () => {
      const t = (await head.getJson('/api/v1/status')).tree;
      return t.timelines_fetched >= 1 ? t : null;
    }, 'the head to count its timeline fetches', 5000, 50);
    assert.equal(tree.timeline_fetch_failures, 0, JSON.stringify(tree));
  });

  test('the page draws rank 0\'s timeline as the node has it, waits for rank 1 included', async () => {
    // The timeline keeps about as many regions a span from one second to the
    // next: the page's last poll and a fresh read of the node agree within a
    // few regions at its edges.
    const { tl, own } = await until(async () => {
      const t = await readTimeline(view.page);
      const o = await node.getJson(`${kJobPath}/ranks/0/timeline?seconds=${kSpan}`);
      return t.title === 'Timeline · rank 0' && t.regions > 20 && t.pixels.fetch > 50 && t.pixels.peer_wait > 50
        && Math.abs(t.regions - o.regions.length) <= 0.1 * o.regions.length
        && Math.abs((t.classes.peer_wait ?? 0) - o.peer_waits.length) <= 3 ? { tl: t, own: o } : null;
    }, 'rank 0\'s timeline drawn at the head as the node has it', 30000, 200).catch(async (err) => {
      throw new Error(`${err.message}: ${JSON.stringify(await readTimeline(view.page))}`);
    });
    console.log(`rank 0 at the head: ${tl.regions} regions and ${tl.classes.peer_wait} waits drawn; `
      + `the node has ${own.regions.length} and ${own.peer_waits.length}`);
    // The charts' series of this job, whose ranks are all the node's, come
    // from the node through the head: both ranks, and no console error.
    const series = await head.getJson(`${kJobPath}/series?metric=data_stall_ratio&window=5s&seconds=${kSpan}`);
    assert.deepEqual(series.ranks.map((r) => r.rank), [0, 1]);
    assert.deepEqual(series.failed_nodes, []);
    assert.ok(series.mean.some((v) => v !== null), JSON.stringify(series.mean));
    assert.deepEqual(view.unexpected(), [], 'no console errors');
    await view.screenshot('tree-head-remote-timeline', { fullPage: true });
  });
});
