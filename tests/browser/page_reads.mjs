// SPDX-License-Identifier: MIT
// Reads what the dashboard shows, straight from its DOM (the texts a user
// sees, plus the data-* attributes the page keeps for tools: data-value on
// table cells, data-tick on the job view, data-points on charts,
// data-regions/data-classes on the timeline), and turns displayed texts back
// into numbers so they can be compared with the API. Test-only.

// Everything the job view shows, read in one go inside the page so it is
// one consistent render.
export function readJobView(page) {
  return page.evaluate(() => {
    const view = document.querySelector('#main > .job-view');
    const cellMap = (tr) => Object.fromEntries(Array.from(tr.children, (td) => [td.dataset.field,
      { value: td.dataset.value ?? '', text: td.textContent.trim() }]));
    const rows = Array.from(view.querySelectorAll('table.data tbody tr'), (tr) => ({
      key: tr.dataset.key, selected: tr.getAttribute('aria-selected') === 'true', cells: cellMap(tr),
    }));
    const kpis = Object.fromEntries(Array.from(view.querySelectorAll('[data-kpi]'), (el) => [el.dataset.kpi, {
      label: el.querySelector('.kpi-label')?.textContent.trim() ?? null,
      value: el.querySelector('.kpi-value')?.textContent.trim() ?? null,
      sub: el.querySelector('.kpi-sub')?.textContent.trim() ?? null,
      verdict: el.querySelector('[data-verdict]')?.dataset.verdict ?? null,
    }]));
    return {
      hidden: view.hidden,
      tick: view.dataset.tick === undefined ? null : Number(view.dataset.tick),
      window: view.dataset.window ?? null,
      rows,
      kpis,
      conn: document.getElementById('conn').textContent.trim(),
      windowButton: document.querySelector('#window-select [aria-checked="true"]')?.dataset.window ?? null,
      timelineTitle: document.getElementById('timeline-title')?.textContent.trim() ?? null,
      heldBack: view.querySelector('[data-held-back]')?.textContent.trim() ?? null,
    };
  });
}

// The job list: its tick and window, and each job row's cells.
export function readJobList(page) {
  return page.evaluate(() => {
    const list = document.querySelector('#main > section[aria-labelledby="jobs-title"]');
    return {
      tick: list.dataset.tick ? Number(list.dataset.tick) : null,
      window: list.dataset.window ?? null,
      rows: Array.from(list.querySelectorAll('table.data tbody tr'), (tr) => ({
        key: tr.dataset.key,
        selected: tr.getAttribute('aria-selected') === 'true',
        cells: Object.fromEntries(Array.from(tr.children, (td) => [td.dataset.field,
          { value: td.dataset.value ?? '', text: td.textContent.trim() }])),
      })),
    };
  });
}

// The four charts: how many points uPlot holds for the job mean and for the
// selected rank, and how many pixels of the plot canvas are drawn on.
export function readCharts(page) {
  return page.evaluate(() => Array.from(document.querySelectorAll('.chart[data-metric]'), (el) => {
    const canvas = el.querySelector('.chart-plot canvas');
    let inked = 0;
    if (canvas && canvas.width && canvas.height) {
      // A copy to read from, so the page's own canvas is never read back.
      const copy = document.createElement('canvas');
      copy.width = canvas.width;
      copy.height = canvas.height;
      const g = copy.getContext('2d', { willReadFrequently: true });
      g.drawImage(canvas, 0, 0);
      const px = g.getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 3; i < px.length; i += 4) if (px[i] > 0) inked += 1;
    }
    return {
      metric: el.dataset.metric,
      points: Number(el.dataset.points ?? 0),
      rankPoints: Number(el.dataset.rankPoints ?? 0),
      inked,
      empty: !el.querySelector('.chart-empty').hidden,
    };
  }));
}

// The timeline panel: its model's region count per class, and how many
// canvas pixels carry each class's colour (what a user actually sees).
export function readTimeline(page) {
  return page.evaluate(() => {
    const panel = document.querySelector('section[data-regions]');
    const canvas = panel.querySelector('canvas.timeline-canvas');
    const classes = Object.fromEntries((panel.dataset.classes ?? '').split(' ').filter(Boolean).map((kv) => {
      const [k, v] = kv.split(':');
      return [k, Number(v)];
    }));
    const probe = document.createElement('span');
    document.body.append(probe);
    const rgb = (name) => {
      probe.style.color = `var(${name})`;
      const m = /rgba?\((\d+), (\d+), (\d+)/.exec(getComputedStyle(probe).color);
      return m ? m.slice(1, 4).map(Number) : null;
    };
    const colours = { fetch: rgb('--c-fetch'), compute: rgb('--c-compute'), device_busy: rgb('--c-device_busy'), app_io: rgb('--c-app_io'), peer_wait: rgb('--c-peer_wait') };
    probe.remove();
    const pixels = Object.fromEntries(Object.keys(colours).map((k) => [k, 0]));
    if (!canvas.closest('[hidden]') && canvas.width && canvas.height) {
      const copy = document.createElement('canvas');
      copy.width = canvas.width;
      copy.height = canvas.height;
      const g = copy.getContext('2d', { willReadFrequently: true });
      g.drawImage(canvas, 0, 0);
      const px = g.getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 0; i < px.length; i += 4) {
        for (const [k, c] of Object.entries(colours)) {
          if (c && Math.abs(px[i] - c[0]) <= 2 && Math.abs(px[i + 1] - c[1]) <= 2 && Math.abs(px[i + 2] - c[2]) <= 2) pixels[k] += 1;
        }
      }
    }
    return {
      regions: Number(panel.dataset.regions ?? 0),
      lanes: Number(panel.dataset.lanes ?? 0),
      classes,
      pixels,
      title: panel.querySelector('h2').textContent.trim(),
      note: panel.querySelector('.empty:not([hidden])')?.textContent ?? null,
      stats: panel.querySelector('.timeline-stats').textContent.trim(),
    };
  });
}

const kDash = '—';

// What the "Epoch · step" cell must read for an API rank row (-1 is "not
// seen yet").
export function epochStepText(apiRank) {
  const part = (v) => (v < 0 ? kDash : v.toLocaleString('en-US'));
  return `${part(apiRank.epoch)} · ${part(apiRank.step)}`;
}

// "61.3%" -> 0.613; "—" -> null.
export function parsePct(text) {
  if (text === kDash) return null;
  const m = /^(-?\d+(?:\.\d+)?)%$/.exec(text);
  if (!m) throw new Error(`not a percentage: "${text}"`);
  return Number(m[1]) / 100;
}

// "420 µs", "12.5 ms", "4.21 s", "0 s", "3m 05s" -> seconds; "—" -> null.
export function parseSeconds(text) {
  if (text === kDash) return null;
  let m = /^(-?\d+(?:\.\d+)?) (µs|ms|s)$/.exec(text);
  if (m) return Number(m[1]) * { µs: 1e-6, ms: 1e-3, s: 1 }[m[2]];
  m = /^(\d+)m (\d+)s$/.exec(text);
  if (m) return Number(m[1]) * 60 + Number(m[2]);
  throw new Error(`not a duration: "${text}"`);
}

// "12.4", "1.2k", "3.4M" (rates shown without "/s") -> number; "—" -> null.
export function parseRate(text) {
  if (text === kDash) return null;
  const m = /^(-?\d+(?:\.\d+)?)([kM]?)(?:\/s)?$/.exec(text);
  if (!m) throw new Error(`not a rate: "${text}"`);
  return Number(m[1]) * { '': 1, k: 1e3, M: 1e6 }[m[2]];
}

// True when `shown` (parsed from a display text) is `actual` rounded the
// way the page rounds: ratios to 0.1 %, durations to 3 significant digits,
// rates to 3 significant digits but at least 2 decimals.
export function agrees(kind, shown, actual) {
  if (actual === null || actual === undefined) return shown === null;
  if (shown === null) return false;
  const tol = { pct: 0.0005, seconds: Math.max(Math.abs(actual) * 0.005, 5e-7), rate: Math.max(Math.abs(actual) * 0.005, 0.005) }[kind];
  return Math.abs(shown - actual) <= tol + 1e-9;
}
