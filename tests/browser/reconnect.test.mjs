// SPDX-License-Identifier: MIT
// The dashboard survives a daemon restart: with a live job open, stallwatchd
// is stopped (the page must say "reconnecting…" and dim its stale figures),
// then started again on the same HTTP and ingest ports with no state (the
// feeders' agents reconnect by themselves); the page must go "live" again
// and show the rank rows with figures that match the new daemon's API.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchChromium, WatchedPage } from './chromium.mjs';
import { Daemon, sleep, until } from './daemon.mjs';
import { Feeders, kStarvedRanks } from './feeder.mjs';
import { epochStepText, readJobView } from './page_reads.mjs';

const kJob = 'browser-restart';
const kJobPath = `/api/v1/jobs/${kJob}`;

const daemon = new Daemon();
const feeders = new Feeders();
let browser = null;
let tab = null;
let downAt = 0;
const kDownMs = 3000;
let backAt = 0;

const rowCount = async () => (await readJobView(tab.page)).rows.length;
const connText = () => tab.page.locator('#conn').textContent();

describe('dashboard across a daemon restart', { concurrency: 1 }, () => {
  before(async () => {
    await daemon.start();
    feeders.start(daemon.ingestEndpoint, kJob);
    browser = await launchChromium();
  });

  after(async () => {
    await feeders.stop();
    if (browser) await browser.close();
    const output = [daemon.log().trim(), feeders.output.join('').trim()].filter(Boolean);
    if (output.length) console.log(`stallwatchd and feeder output:\n${output.join('\n')}`);
    await daemon.dispose();
  });

  test('live job open', async () => {
    await until(async () => (await daemon.getJson(kJobPath))?.ranks.length === kStarvedRanks.length, 'both ranks in the API', 20000);
    tab = await WatchedPage.open(browser, `${daemon.baseUrl}/#/jobs/${kJob}?window=5s`);
    await until(async () => (await rowCount()) === kStarvedRanks.length && (await connText()) === 'live', 'rows and "live"', 10000);
  });

  test('daemon stopped: "reconnecting…" is shown and the figures are dimmed', async () => {
    downAt = Date.now();
    await daemon.stop();
    await until(async () => (await connText()) === 'reconnecting…', '"reconnecting…"', 10000);
    assert.equal(await tab.page.evaluate(() => document.body.classList.contains('stale')), true, 'stale figures are dimmed');
    assert.equal(await rowCount(), kStarvedRanks.length, 'the last figures stay on screen while down');
    // Down for a while: several reconnect attempts fail, and so do the
    // timeline polls; the page must keep saying so.
    await sleep(kDownMs);
    assert.equal(await connText(), 'reconnecting…');
    assert.ok(tab.problems.some((p) => p.at > downAt && /WebSocket/.test(p.text)), 'the page kept trying to reconnect');
    await tab.screenshot('reconnecting');
  });

  test('daemon restarted on the same port: "live" again, rows back, figures current', async () => {
    await daemon.start();
    backAt = Date.now();
    await until(async () => (await connText()) === 'live', '"live" after the restart', 20000, 100);
    assert.equal(await tab.page.evaluate(() => document.body.classList.contains('stale')), false);
    await until(async () => (await daemon.getJson(kJobPath))?.ranks.length === kStarvedRanks.length, 'the agents to reconnect', 20000);
    await until(async () => (await rowCount()) === kStarvedRanks.length, 'rank rows back', 5000);
    // The new daemon started from nothing: a figure from before the restart
    // would carry an older tick than the one the new daemon has published.
    await until(async () => {
      const shown = await readJobView(tab.page);
      const api = await daemon.getJson(kJobPath);
      return api && shown.tick === api.tick
        && shown.rows.every((r) => {
          const a = api.ranks.find((x) => String(x.rank) === r.key);
          return a && r.cells.step.text === epochStepText(a);
        });
    }, 'the page at the new daemon\'s tick, steps matching', 20000, 50);
    // Right after the restart the new daemon has under a second of data; once
    // the 5 s window has filled again the page shows the job starving again.
    await until(async () => {
      const shown = await readJobView(tab.page);
      return shown.kpis.verdict.verdict === 'data-starved' && shown.rows.every((r) => r.cells.verdict.value === 'data-starved');
    }, 'the data-starved verdict back on the page', 20000, 100);
    await tab.screenshot('reconnected');
  });

  test('no console errors but those the outage caused', () => {
    // While the daemon is down Chromium logs the failed WebSocket handshakes
    // and the refused timeline/history requests; right after the restart the
    // job is unknown to the new daemon until the agents' next batch (404).
    // All of these are what a real restart causes; only they are allowed,
    // and only between the stop and shortly after the start.
    const host = `127.0.0.1:${daemon.httpPort}`;
    const outage = (p) => p.at >= downAt && p.at <= backAt + 10000 && (
      (p.kind === 'requestfailed' && p.url.includes(host))
      || (p.kind === 'console.error' && /WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/api\/v1\/stream' failed/.test(p.text))
      || (p.kind === 'console.error' && /Failed to load resource: net::ERR_CONNECTION_REFUSED/.test(p.text))
      || (p.kind === 'console.error' && /status of 404/.test(p.text) && p.url.includes(`/api/v1/jobs/${kJob}`)));
    assert.deepEqual(tab.unexpected(outage), []);
  });
});
