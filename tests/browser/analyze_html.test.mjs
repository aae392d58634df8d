// SPDX-License-Identifier: MIT
// `stallwatch analyze --html`: the report page opened from file:// in
// Chromium loads nothing but itself, shows the text report's sections, draws
// its charts, agrees with the JSON report run on the same traces, and sorts
// the operator table on a header click.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { launchChromium, WatchedPage } from './chromium.mjs';

const stallwatch = process.env.SW_STALLWATCH;
const testData = process.env.SW_TEST_DATA;
if (!stallwatch || !existsSync(stallwatch) || !testData) {
  console.error('SW_STALLWATCH / SW_TEST_DATA not set (run the browser tests through ctest)');
  process.exit(1);
}

const kSections = ['inputs', 'hta-temporal', 'hta-steps', 'hta-idle', 'hta-kernels', 'hta-launches', 'hta-queues',
  'hta-operators', 'stallwatch-view'];

const dir = mkdtempSync(path.join(os.tmpdir(), 'sw-analyze-html-'));
const htmlFile = path.join(dir, 'report.html');
let report = null;
let browser = null;
let tab = null;
const requests = [];

// The cells of one table, by header text, as strings.
const tableRows = (id) => tab.page.evaluate((tableId) => {
  const table = document.getElementById(tableId);
  const header = [...table.tHead.rows[0].cells].map((c) => c.textContent);
  return [...table.tBodies[0].rows].map((r) => Object.fromEntries([...r.cells].map((c, i) => [header[i], c.textContent])));
}, id);

describe('stallwatch analyze --html in Chromium', { concurrency: 1 }, () => {
  before(async () => {
    const traces = ['sampled_rank-0.json.gz', 'sampled_rank-1.json.gz'].map((f) => path.join(testData, 'kineto', 'two-rank', f));
    const out = execFileSync(stallwatch, ['analyze', ...traces, '--batch-size', '64', '--json', '--html', htmlFile],
      { encoding: 'utf8', maxBuffer: 64 << 20 });
    report = JSON.parse(out);
    browser = await launchChromium();
  });

  after(async () => {
    if (tab) await tab.close();
    if (browser) await browser.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the page opens from file:// and requests nothing else', async () => {
    const url = pathToFileURL(htmlFile).href;
    tab = await WatchedPage.open(browser, 'about:blank');
    tab.page.on('request', (r) => requests.push(r.url()));
    await tab.page.goto(url);
    await tab.page.waitForLoadState('load');
    assert.deepEqual(requests, [url]);
    assert.equal(await tab.page.title(), 'stallwatch analyze');
  });

  test('every section of the text report is there', async () => {
    for (const id of kSections) {
      assert.equal(await tab.page.locator(`section#${id}`).isVisible(), true, id);
    }
  });

  test('the figures equal the JSON report', async () => {
    const temporal = await tableRows('hta-temporal-table');
    assert.equal(temporal.length, report.hta.ranks.length);
    for (const [i, rank] of report.hta.ranks.entries()) {
      assert.equal(Number(temporal[i].rank), rank.rank);
      assert.equal(Number(temporal[i].idle), rank.idle_time_us, `rank ${rank.rank} idle µs`);
      assert.equal(Number(temporal[i]['compute %']), rank.compute_time_pctg);
    }
    const steps = await tableRows('hta-steps-table');
    const job = steps.find((r) => r.rank === 'job');
    assert.ok(job, 'a job QPS row');
    assert.equal(job.QPS, report.hta.steps.job_qps.toFixed(1));
  });

  test('the temporal and idle charts are drawn', async () => {
    const bars = await tab.page.evaluate(() => [...document.querySelectorAll('#hta-temporal-chart rect[data-series]')]
      .map((r) => r.getBBox().width));
    assert.equal(bars.length, 3 * report.hta.ranks.length);
    assert.ok(bars.every((w) => w >= 0) && bars.some((w) => w > 100), `bar widths ${bars}`);
    const idle = await tab.page.locator('#hta-idle-chart rect[data-series]').count();
    assert.ok(idle > 0);
    await tab.screenshot('analyze-report', { fullPage: true });
  });

  test('a header click sorts the operator table', async () => {
    await tab.page.locator('#hta-operators-table th', { hasText: /^calls$/ }).click();
    const calls = (await tableRows('hta-operators-table')).map((r) => Number(r.calls));
    assert.ok(calls.length > 2);
    assert.deepEqual(calls, [...calls].sort((a, b) => b - a));
  });

  test('no console errors', () => {
    assert.deepEqual(tab.unexpected(), []);
  });
});
