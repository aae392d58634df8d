// SPDX-License-Identifier: MIT
// The dashboard against a real stallwatchd fed by the real agent: two ranks
// of a data-starved job (browser_feeder). One daemon and one browser for the
// whole file; the steps run in order and build on each other:
// empty state -> job and rank rows appear -> figures match the API at the
// same tick -> charts have points -> the timeline shows regions ->
// keyboard navigation -> screenshots. No console error is allowed except
// the one 404 the deep link causes before the job exists (see below).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchChromium, WatchedPage } from './chromium.mjs';
import { Daemon, kWindows, until } from './daemon.mjs';
import { Feeders, kStarvedRanks } from './feeder.mjs';
import { agrees, epochStepText, parsePct, parseRate, parseSeconds, readCharts, readJobList, readJobView, readTimeline } from './page_reads.mjs';

const kJob = 'browser-starved';
const kJobPath = `/api/v1/jobs/${kJob}`;

const daemon = new Daemon();
const feeders = new Feeders();
let browser = null;
let list = null;  // a tab on the job list (#/)
let view = null;  // a tab deep-linked to the job before it exists
let jobKnownAt = 0;

// Reads the job view and the API until both show the same tick, then
// returns both: the figures must then be identical, so this cannot flake
// on a loaded machine, only take a few more rounds.
async function sameTick(page) {
  return until(async () => {
    const shown = await readJobView(page);
    const api = await daemon.getJson(kJobPath);
    return shown.tick !== null && api && api.tick === shown.tick ? { shown, api } : null;
  }, 'the page and the API at the same tick', 20000, 20);
}

function checkRankRow(shown, apiRank, window) {
  const row = shown.rows.find((r) => r.key === String(apiRank.rank));
  assert.ok(row, `rank ${apiRank.rank} has a row`);
  const m = apiRank.windows[window];
  const cell = (field) => row.cells[field];
  const where = (field) => `rank ${apiRank.rank}, ${field} over ${window}`;
  const raw = (v) => (v === null || v === undefined ? '' : String(v));
  for (const [field, kind] of [['device_idle_ratio', 'pct'], ['data_stall_ratio', 'pct'], ['overlap_ratio', 'pct'],
    ['unoverlapped_app_io_seconds', 'seconds'], ['step_seconds_p50', 'seconds'], ['steps_per_second', 'rate'],
    ['samples_per_second', 'rate']]) {
    assert.equal(cell(field).value, raw(m[field]), `${where(field)}: data-value is the API value`);
    const parse = { pct: parsePct, seconds: parseSeconds, rate: parseRate }[kind];
    const shownValue = parse(cell(field).text);
    assert.ok(agrees(kind, shownValue, m[field]), `${where(field)}: shows "${cell(field).text}", API has ${m[field]}`);
  }
  assert.equal(cell('verdict').value, m.verdict, where('verdict'));
  assert.equal(cell('state').text, apiRank.state, where('state'));
  assert.equal(cell('step').text, epochStepText(apiRank), where('epoch · step'));
  assert.equal(cell('loss').text, `${apiRank.agent_dropped} / ${apiRank.lost_batches}`, where('dropped / lost'));
  assert.equal(cell('device_source').text, apiRank.device_source === 'compute-proxy' ? 'compute proxy' : apiRank.device_source,
    where('device source'));
}

function checkSummary(shown, api, window) {
  const agg = api.summary[window];
  assert.equal(shown.kpis.verdict.verdict, agg.verdict, `job verdict over ${window}`);
  assert.ok(agrees('pct', parsePct(shown.kpis.data_stall_ratio.value), agg.mean.data_stall_ratio),
    `job data stall: shows ${shown.kpis.data_stall_ratio.value}, API mean ${agg.mean.data_stall_ratio}`);
  assert.ok(agrees('pct', parsePct(shown.kpis.device_idle_ratio.value), agg.mean.device_idle_ratio),
    `job device idle: shows ${shown.kpis.device_idle_ratio.value}, API mean ${agg.mean.device_idle_ratio}`);
  assert.ok(agrees('pct', parsePct(shown.kpis.overlap_ratio.value), agg.mean.overlap_ratio), 'job overlap');
  assert.ok(agrees('seconds', parseSeconds(shown.kpis.step_seconds_p50.value), agg.mean.step_seconds_p50), 'job step time');
  assert.ok(agrees('rate', parseRate(shown.kpis.steps_per_second.value.replace(' steps/s', '')), agg.mean.steps_per_second),
    `job steps/s: shows ${shown.kpis.steps_per_second.value}, API ${agg.mean.steps_per_second}`);
  assert.ok(shown.kpis.data_stall_ratio.sub.endsWith(`rank ${agg.straggler_rank}`), `straggler named: ${shown.kpis.data_stall_ratio.sub}`);
}

async function checkJobListMatches() {
  const { shown, api } = await until(async () => {
    const s = await readJobList(list.page);
    const a = await daemon.getJson('/api/v1/jobs');
    return s.tick !== null && a && a.tick === s.tick ? { shown: s, api: a } : null;
  }, 'the job list and the API at the same tick', 20000, 20);
  const job = api.jobs.find((j) => j.job === kJob);
  const row = shown.rows.find((r) => r.key === kJob);
  assert.ok(job && row, 'the job is listed');
  const agg = job.summary[shown.window];
  assert.equal(row.cells.ranks.text, `${job.active_ranks} / ${job.ranks}`);
  assert.equal(row.cells.verdict.value, agg.verdict);
  for (const [field, value] of [['device_idle_ratio', agg.mean.device_idle_ratio], ['data_stall_ratio', agg.mean.data_stall_ratio],
    ['data_stall_max', agg.max.data_stall_ratio], ['overlap_ratio', agg.mean.overlap_ratio]]) {
    assert.equal(row.cells[field].value, String(value), `job list ${field}: data-value`);
    assert.ok(agrees('pct', parsePct(row.cells[field].text), value), `job list ${field}: shows ${row.cells[field].text}, API ${value}`);
  }
  assert.ok(agrees('rate', parseRate(row.cells.steps_per_second.text), agg.mean.steps_per_second), 'job list steps/s');
  assert.equal(row.cells.device_source.text, job.device_source);
}

async function checkNumbersMatch(window) {
  const { shown, api } = await sameTick(view.page);
  assert.equal(shown.window, window);
  assert.equal(shown.rows.length, api.ranks.length, 'one row per rank');
  for (const r of api.ranks) checkRankRow(shown, r, window);
  checkSummary(shown, api, window);
}

// The deep-linked tab asks for the job before it exists: the daemon answers
// 404 and Chromium logs that response as a console error. That one is
// legitimate (the page then says so and follows the job when it appears);
// anything else, or the same error after the job exists, is a failure.
const earlyJob404 = (p) => p.kind === 'console.error' && p.url.endsWith(kJobPath) && /status of 404/.test(p.text)
  && (!jobKnownAt || p.at < jobKnownAt);

describe('dashboard on a live data-starved job', { concurrency: 1 }, () => {
  before(async () => {
    await daemon.start();
    browser = await launchChromium();
  });

  after(async () => {
    await feeders.stop();
    if (browser) await browser.close();
    const output = [daemon.log().trim(), feeders.output.join('').trim()].filter(Boolean);
    if (output.length) console.log(`stallwatchd and feeder output:\n${output.join('\n')}`);
    await daemon.dispose();
  });

  test('with no jobs: empty state, live connection, no console errors', async () => {
    list = await WatchedPage.open(browser, `${daemon.baseUrl}/#/`);
    view = await WatchedPage.open(browser, `${daemon.baseUrl}/#/jobs/${kJob}`);
    const empty = list.page.locator('[data-empty="jobs"]');
    await empty.waitFor({ timeout: 10000 });
    assert.match(await empty.textContent(), /no jobs yet.*python -m stallwatch\.run/);
    await list.page.locator('#conn[data-state="live"]').waitFor({ timeout: 10000 });
    assert.equal(await list.page.locator('#alerts [data-empty="alerts"]').count(), 1, 'alerts panel reads the API and shows none');
    const waiting = view.page.locator('#main > .job-view > [role="status"]');
    await until(async () => /no job “browser-starved”/.test(await waiting.textContent()), 'the deep link to say the job is unknown');
    await list.screenshot('empty-state');
    assert.deepEqual(list.unexpected(), []);
  });

  test('job and rank rows appear within 2 s of the data', async () => {
    feeders.start(daemon.ingestEndpoint, kJob);
    await until(async () => {
      const api = await daemon.getJson(kJobPath);
      return api && api.ranks.length === kStarvedRanks.length && api.ranks.every((r) => r.events_received > 0);
    }, 'the API to show both ranks', 20000, 20);
    jobKnownAt = Date.now();
    const ranks = view.page.locator('#main > .job-view table.data tbody tr');
    await until(async () => (await ranks.count()) === kStarvedRanks.length, 'rank rows on the deep-linked tab', 2000, 20);
    await list.page.locator(`tr[data-key="${kJob}"]`).waitFor({ timeout: 2000 });
    const rowsAfterMs = Date.now() - jobKnownAt;
    console.log(`rank and job rows shown ${rowsAfterMs} ms after the API first listed both ranks`);
  });

  test('rank table and job summary match the API at the same tick', async () => {
    await until(async () => {
      const api = await daemon.getJson(kJobPath);
      return api.ranks.every((r) => r.windows['5s'].steps >= 5 && r.windows['5s'].step_seconds_p50 !== null);
    }, 'a few steps in the 5 s window', 20000, 100);
    await checkNumbersMatch('60s');
    await checkJobListMatches();
    const { shown, api } = await sameTick(view.page);
    assert.equal(api.summary['5s'].verdict, 'data-starved', 'the feeder really starves');
    assert.deepEqual(api.ranks.map((r) => r.device_source), ['cuda-events', 'compute-proxy']);
    const banner = await view.page.locator('[data-proxy="true"]').textContent();
    assert.match(banner, /no device signal: compute stands in for device busy\s*for rank 1:/, 'the proxy banner names rank 1 only');
    assert.equal(shown.kpis.device_idle_ratio.label, 'Device idle (mixed)');
  });

  test('charts have points for the job and the selected rank', async () => {
    const charts = await until(async () => {
      const c = await readCharts(view.page);
      return c.length === 4 && c.every((x) => x.points >= 3 && x.rankPoints >= 3 && x.inked > 500) ? c : null;
    }, 'four charts with points', 20000, 200).catch(async (err) => {
      throw new Error(`${err.message}: ${JSON.stringify(await readCharts(view.page))}`);
    });
    assert.deepEqual(charts.map((c) => c.metric), ['device_idle_ratio', 'data_stall_ratio', 'overlap_ratio', 'step_seconds_p50']);
    assert.ok(charts.every((c) => !c.empty));
  });

  test('the timeline shows fetch, compute and device regions', async () => {
    await view.page.evaluate(() => { location.hash = '#/jobs/browser-starved?rank=0&span=10'; });
    const tl = await until(async () => {
      const t = await readTimeline(view.page);
      return t.title === 'Timeline · rank 0' && t.classes.fetch > 0 && t.classes.compute > 0 && t.classes.device_busy > 0
        && t.pixels.fetch > 200 && t.pixels.compute > 200 && t.pixels.device_busy > 200 ? t : null;
    }, 'rank 0 timeline with drawn regions', 15000, 200).catch(async (err) => {
      throw new Error(`${err.message}: ${JSON.stringify(await readTimeline(view.page))}`);
    });
    assert.ok(tl.lanes >= 3, `device lane, main thread and the worker process: ${tl.lanes} lanes`);
    assert.ok(tl.classes.app_io > 0, 'the data-loader worker\'s read.batch regions');
    assert.match(tl.stats, /device busy \d+% · fetch \d+% · compute \d+%/);
    const api = await daemon.getJson(`${kJobPath}/ranks/0/timeline?seconds=10`);
    const apiClasses = new Set(api.regions.map((r) => r.class));
    for (const cls of Object.keys(tl.classes)) assert.ok(apiClasses.has(cls), `class ${cls} drawn is one the API reports`);
  });

  test('the rank card lists its top files by I/O time as the API does', async () => {
    await view.page.evaluate(() => { location.hash = '#/jobs/browser-starved?rank=0&span=10'; });
    const path = kStarvedRanks[0].file;
    const table = await until(async () => {
      const t = await view.page.evaluate(() => {
        const el = document.querySelector('#rank-detail table.top-files');
        if (!el) return null;
        return { caption: el.querySelector('caption')?.textContent ?? '',
          rows: [...el.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)) };
      });
      return t && t.rows.length > 0 ? t : null;
    }, 'the top files table on the rank card', 15000, 200);
    assert.match(table.caption, /^Top files by I\/O time \(\d+ s\)$/);
    assert.equal(table.rows[0][0], path, 'the worker\'s file first');
    assert.equal(table.rows[0].length, 5, 'file, I/O time, read, written, calls');
    const api = await daemon.getJson(kJobPath);
    const files = Object.values(api.ranks[0].top_files);
    assert.ok(files.some((w) => w.files[0]?.path === path && w.files[0].read_bytes % 65536 === 0 && w.files[0].read_bytes > 0),
      JSON.stringify(api.ranks[0].top_files));
    assert.deepEqual(Object.values(api.ranks[1].top_files).flatMap((w) => w.files), [], 'rank 1 reads no file');
    // The total since the start is one more window of the selector.
    const was = (await readJobView(view.page)).window;
    await view.page.evaluate(() => { location.hash = '#/jobs/browser-starved?rank=0&span=10&window=total'; });
    const total = await until(async () => {
      const t = await view.page.evaluate(() => {
        const el = document.querySelector('#rank-detail table.top-files');
        return el ? { caption: el.querySelector('caption')?.textContent ?? '',
          first: el.querySelector('tbody tr td')?.textContent ?? '' } : null;
      });
      return t && t.caption.endsWith('(since start)') && t.first ? t : null;
    }, 'the top files table of the total', 15000, 200);
    assert.equal(total.first, path, 'the worker\'s file first since the start too');
    const since = (await daemon.getJson(kJobPath)).ranks[0].top_files.total;
    assert.equal(since?.files?.[0]?.path, path, JSON.stringify(since));
    await view.page.evaluate((w) => { location.hash = `#/jobs/browser-starved?rank=0&span=10&window=${w}`; }, was);
    await until(async () => (await readJobView(view.page)).window === was, `the window back to ${was}`, 5000);
  });

  test('keyboard: j/k move the rank, w changes the window, Enter/Esc open and leave a job', async () => {
    const p = view.page;
    await p.evaluate(() => document.activeElement?.blur());
    const selected = async () => (await readJobView(p)).rows.find((r) => r.selected)?.key ?? null;
    assert.equal(await selected(), '0');
    await p.keyboard.press('j');
    await until(async () => (await selected()) === '1' && /rank=1/.test(p.url()), 'j to select rank 1', 5000);
    await until(async () => (await readJobView(p)).timelineTitle === 'Timeline · rank 1', 'the timeline to follow rank 1', 5000);
    await p.keyboard.press('k');
    await until(async () => (await selected()) === '0' && /rank=0/.test(p.url()), 'k to select rank 0', 5000);

    const before = (await readJobView(p)).window;
    await p.keyboard.press('w');
    const next = kWindows.concat(['total'])[(kWindows.concat(['total']).indexOf(before) + 1) % 4];
    await until(async () => {
      const s = await readJobView(p);
      return s.window === next && s.windowButton === next;
    }, `w to switch the window to ${next}`, 5000);
    await checkNumbersMatch(next);
    await p.keyboard.press('1');
    await until(async () => (await readJobView(p)).window === '5s', '1 to pick the 5 s window', 5000);
    await checkNumbersMatch('5s');

    const l = list.page;
    await l.evaluate(() => document.activeElement?.blur());
    await l.keyboard.press('j');
    await until(async () => (await l.locator(`tr[data-key="${kJob}"][aria-selected="true"]`).count()) === 1, 'j to select the job', 5000);
    await l.keyboard.press('Enter');
    await until(async () => l.url().includes(`#/jobs/${kJob}`), 'Enter to open the job', 5000);
    await l.locator('#main > .job-view table.data tbody tr').first().waitFor({ timeout: 5000 });
    await l.keyboard.press('Escape');
    await until(async () => l.url().endsWith('#/') || l.url().includes('#/?'), 'Esc to go back to the job list', 5000);
    await l.locator(`tr[data-key="${kJob}"]`).waitFor({ timeout: 5000 });
  });

  test('screenshots, and no console errors', async () => {
    // Let the job run long enough to fill the 10 s timeline and the charts.
    await until(async () => {
      const api = await daemon.getJson(kJobPath);
      return (api.now_ns - api.start_ns) / 1e9 >= 14;
    }, 'the job to be 14 s old', 30000, 250);
    await list.screenshot('job-list');
    await view.screenshot('job-view', { fullPage: true });
    const dark = await WatchedPage.open(browser, `${daemon.baseUrl}/#/jobs/${kJob}?rank=0&window=5s`, { colorScheme: 'dark' });
    await until(async () => (await readTimeline(dark.page)).regions > 0, 'the dark tab to draw its timeline', 10000, 200);
    await until(async () => (await readCharts(dark.page)).every((c) => c.points > 0), 'the dark tab to draw its charts', 10000, 200);
    await dark.screenshot('job-view-dark', { fullPage: true });
    const text = await view.page.locator('#main').textContent();
    assert.doesNotMatch(text, /NaN|undefined|null|Infinity/, 'no raw NaN/undefined/null in the job view');
    assert.deepEqual(list.unexpected(), [], 'job list tab');
    assert.deepEqual(view.unexpected(earlyJob404), [], 'job view tab');
    assert.deepEqual(dark.unexpected(), [], 'dark tab');
    await dark.close();
  });
});
