// SPDX-License-Identifier: MIT
// `stallwatch analyze --html`: the report page opened from file:// in
// Chromium loads nothing but itself, shows the text report's sections, draws
// its charts with the dashboard's chart library (uPlot, inlined), agrees with
// the JSON report run on the same traces (tables and charts), and sorts the
// operator table on a header click. A second page, of two ranks of a dftracer
// trace, lists each rank's top files by I/O time as the JSON report has them
// (the Kineto page has no such section).
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
const pfwHtmlFile = path.join(dir, 'pfw-report.html');
let report = null;
let pfwReport = null;
let browser = null;
let tab = null;
const requests = [];

// The cells of one table, by header text, as strings.
const tableRows = (id) => tab.page.evaluate((tableId) => {
  const table = document.getElementById(tableId);
  const header = [...table.tHead.rows[0].cells].map((c) => c.textContent);
  return [...table.tBodies[0].rows].map((r) => Object.fromEntries([...r.cells].map((c, i) => [header[i], c.textContent])));
}, id);

// What a chart shows: its bar labels and, per series label, one figure per
// bar (uPlot draws stacked sums; they are taken apart again), whether uPlot
// drew it, and how many pixels of its canvas are painted.
const chartFigures = (id) => tab.page.evaluate((chartId) => {
  const chart = window.stallwatchCharts?.[chartId];
  if (!chart) return null;
  const { plot, spec } = chart;
  const names = plot.series.slice(1).map((s) => s.label).reverse();
  const sums = plot.data.slice(1).reverse();
  const figures = {};
  names.forEach((name, k) => {
    figures[name] = sums[k].map((v, i) => v - (k > 0 ? sums[k - 1][i] : 0));
  });
  const canvas = document.querySelector(`#${chartId} .uplot canvas`);
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let painted = 0;
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) ++painted;
  // The labels on the axis are the ones uPlot was given.
  const labels = plot.data[0].map((i) => spec.bars[i].label);
  // uPlot returns a plain object whose root is the .uplot element it built.
  const uplot = typeof window.uPlot === 'function' && plot.root?.classList.contains('uplot') &&
    plot.root.parentElement?.id === chartId && plot.root.contains(canvas);
  return { labels, figures, uplot, painted };
}, id);

const assertClose = (actual, expected, what) => {
  assert.ok(Array.isArray(actual), `${what}: no such series`);
  assert.equal(actual.length, expected.length, what);
  actual.forEach((a, i) => {
    const e = Math.max(expected[i], 0);
    assert.ok(Math.abs(a - e) <= 1e-6 * Math.max(1, Math.abs(e)), `${what} [${i}]: chart ${a}, report ${e}`);
  });
};

describe('stallwatch analyze --html in Chromium', { concurrency: 1 }, () => {
  before(async () => {
    const traces = ['sampled_rank-0.json.gz', 'sampled_rank-1.json.gz'].map((f) => path.join(testData, 'kineto', 'two-rank', f));
    const out = execFileSync(stallwatch, ['analyze', ...traces, '--batch-size', '64', '--json', '--html', htmlFile],
      { encoding: 'utf8', maxBuffer: 64 << 20 });
    report = JSON.parse(out);
    const pfw = ['trace-0-of-8.pfw.gz', 'trace-1-of-8.pfw.gz'].map((f) => path.join(testData, 'dftracer-dlio', f));
    pfwReport = JSON.parse(execFileSync(stallwatch, ['analyze', ...pfw, '--json', '--html', pfwHtmlFile],
      { encoding: 'utf8', maxBuffer: 64 << 20 }));
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

  test('the charts are drawn by uPlot and carry the JSON report\'s figures', async () => {
    const temporal = await chartFigures('hta-temporal-chart');
    const ranks = report.hta.ranks.filter((r) => r.gpu_events > 0);
    assert.deepEqual(temporal.labels, ranks.map((r) => `rank ${r.rank}`));
    assertClose(temporal.figures['compute (%)'], ranks.map((r) => r.compute_time_pctg), 'compute %');
    assertClose(temporal.figures['non-compute (%)'], ranks.map((r) => r.non_compute_time_pctg), 'non-compute %');
    assertClose(temporal.figures['idle (%)'], ranks.map((r) => r.idle_time_pctg), 'idle %');

    const idle = await chartFigures('hta-idle-chart');
    const streams = report.hta.ranks.flatMap((r) => r.idle_by_stream.map((s) => ({ rank: r.rank, ...s })));
    assert.deepEqual(idle.labels, streams.map((s) => `rank ${s.rank} stream ${s.stream}`));
    assertClose(idle.figures['host wait (µs)'], streams.map((s) => s.host_wait_us), 'host wait');
    assertClose(idle.figures['kernel wait (µs)'], streams.map((s) => s.kernel_wait_us), 'kernel wait');
    assertClose(idle.figures['other (µs)'], streams.map((s) => s.other_us), 'other');

    const kernels = await chartFigures('hta-kernel-chart');
    const types = report.hta.kernel_breakdown.kernel_types;
    assert.deepEqual(kernels.labels, types.map((t) => t.kernel_type));
    assertClose(kernels.figures['time (µs)'], types.map((t) => t.sum_us), 'kernel type time');

    // The top 10 operators of each rank, CPU overheads summed over calls.
    const overheads = await chartFigures('hta-overhead-chart');
    const shown = [];
    const perRank = new Map();
    for (const op of report.hta.operator_attribution.operators) {
      const n = perRank.get(op.rank) ?? 0;
      perRank.set(op.rank, n + 1);
      if (n < 10) shown.push(op);
    }
    assert.equal(overheads.labels.length, shown.length);
    const total = (o) => o.mean_us * o.count;
    assertClose(overheads.figures['T1 gap before (µs)'], shown.map((op) => total(op.t1_gap_before)), 'T1');
    assertClose(overheads.figures['T2 to first launch (µs)'], shown.map((op) => total(op.t2_to_first_launch)), 'T2');
    assertClose(overheads.figures['T3 after last launch (µs)'], shown.map((op) => total(op.t3_after_last_launch)), 'T3');
    assertClose(overheads.figures['T5 between launches (µs)'], shown.map((op) => total(op.t5_between_launches)), 'T5');

    for (const chart of [temporal, idle, kernels, overheads]) {
      assert.equal(chart.uplot, true, 'drawn by uPlot');
      assert.ok(chart.painted > 1000, `${chart.painted} pixels painted`);
    }
    await tab.screenshot('analyze-report', { fullPage: true });
  });

  test('a header click sorts the operator table', async () => {
    await tab.page.locator('#hta-operators-table th', { hasText: /^calls$/ }).click();
    const calls = (await tableRows('hta-operators-table')).map((r) => Number(r.calls));
    assert.ok(calls.length > 2);
    assert.deepEqual(calls, [...calls].sort((a, b) => b - a));
  });

  test('a Kineto-only report has no top-files section', async () => {
    assert.equal(await tab.page.locator('#top-files, #top-files-table').count(), 0);
    assert.equal(await tab.page.getByText('Top files', { exact: false }).count(), 0);
  });

  test('a .pfw report lists each rank\'s top files as the JSON report has them', async () => {
    const url = pathToFileURL(pfwHtmlFile).href;
    requests.length = 0;
    await tab.page.goto(url);
    await tab.page.waitForLoadState('load');
    assert.deepEqual(requests, [url]);
    for (const id of ['inputs', 'dfanalyzer', 'stallwatch-view', 'top-files']) {
      assert.equal(await tab.page.locator(`section#${id}`).isVisible(), true, id);
    }
    assert.equal(await tab.page.locator('section[id^="hta-"]').count(), 0);

    const expected = [];
    for (const job of pfwReport.stallwatch.jobs) {
      for (const rank of job.ranks) {
        if (!rank.top_files) continue;
        const who = `${job.job}/${rank.rank}`;
        for (const f of rank.top_files.files) expected.push({ who, file: f.path, ...f });
        if (rank.top_files.other.ops > 0) expected.push({ who, file: 'other files', ...rank.top_files.other });
      }
    }
    // Both ranks, ten files each and their other files.
    assert.equal(expected.length, 22);
    const rows = await tableRows('top-files-table');
    assert.equal(rows.length, expected.length);
    rows.forEach((row, i) => {
      const e = expected[i];
      const what = `row ${i} (${e.who} ${e.file})`;
      assert.equal(row['job/rank'], e.who, what);
      assert.equal(row.file, e.file, what);
      assert.ok(Math.abs(Number(row['I/O s']) - e.io_seconds) <= 5e-7, `${what}: ${row['I/O s']} s, JSON ${e.io_seconds}`);
      assert.equal(Number(row['read bytes']), e.read_bytes, what);
      assert.equal(Number(row['written bytes']), e.write_bytes, what);
      assert.equal(Number(row.calls), e.ops, what);
    });

    // Sortable like the operator table: a click on "I/O s" puts the largest first.
    await tab.page.locator('#top-files-table th', { hasText: /^I\/O s$/ }).click();
    const seconds = (await tableRows('top-files-table')).map((r) => Number(r['I/O s']));
    assert.equal(seconds.length, expected.length);
    assert.deepEqual(seconds, [...seconds].sort((a, b) => b - a));
    assert.equal(seconds[0], Math.max(...expected.map((e) => Number(e.io_seconds.toFixed(6)))));
    await tab.screenshot('analyze-report-pfw', { fullPage: true });
  });

  test('no console errors', () => {
    assert.deepEqual(tab.unexpected(), []);
  });
});
