// SPDX-License-Identifier: MIT
// One live chart (uPlot) of a metric over time: job mean, job max (dashed)
// and the selected rank. Its own legend shows the values under the cursor,
// else the latest ones. Owns its uPlot instance; recreated on theme change.
// Main thread only. Needs the global uPlot from /vendor/uPlot.iife.min.js.
import { h, replaceChildren } from './dom.js';
import { clock, pct, seconds } from './format.js';
import { cssColor } from './theme.js';

const kHeight = 150;
const kTimeIncrs = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];

function lastValue(col) {
  for (let i = col.length - 1; i >= 0; i -= 1) if (col[i] !== null && col[i] !== undefined) return col[i];
  return null;
}

export class MetricChart {
  constructor({ metric, title, kind }) {
    this.metric = metric;
    this.kind = kind;
    this.fmt = kind === 'ratio' ? (v) => pct(v) : (v) => seconds(v);
    this.data = [[], [], [], []];
    this.rankLabel = 'rank';
    this.plot = null;
    this.width = 400;
    this.title = h('h3', {}, title);
    this.tag = h('span', { class: 'tag warn', hidden: true }, 'compute proxy');
    this.legend = h('div', { class: 'chart-legend' });
    this.area = h('div', { class: 'chart-plot' });
    this.empty = h('div', { class: 'chart-empty' }, 'waiting for data…');
    this.element = h('div', { class: 'chart', dataset: { metric } },
      h('div', { class: 'chart-head' }, this.title, this.tag, this.legend), this.area, this.empty);
  }

  setProxy(on, note) {
    this.tag.hidden = !on;
    this.tag.title = on ? note : '';
  }

  setData(columns, rankLabel) {
    this.data = columns;
    this.rankLabel = rankLabel;
    const hasData = columns.slice(1).some((col) => col.some((v) => v !== null && v !== undefined));
    this.area.hidden = !hasData;
    this.empty.hidden = hasData;
    if (!hasData) {
      replaceChildren(this.legend);
      this.element.dataset.points = '0';
      this.element.dataset.rankPoints = '0';
      return;
    }
    if (this.plot) this.plot.setData(columns);
    else this.create();
    if (!this.plot) return;
    // Points uPlot holds (non-null values) for the job mean and the rank.
    const defined = (col) => col.reduce((n, v) => (v === null || v === undefined ? n : n + 1), 0);
    this.element.dataset.points = String(defined(this.plot.data[1]));
    this.element.dataset.rankPoints = String(defined(this.plot.data[3]));
    this.plot.series[3].label = rankLabel;
    this.showLegend(this.plot.cursor.idx);
  }

  resize(width) {
    this.width = Math.max(200, Math.floor(width));
    if (this.plot) this.plot.setSize({ width: this.width, height: kHeight });
  }

  retheme() {
    if (!this.plot) return;
    this.plot.destroy();
    this.plot = null;
    this.area.replaceChildren();
    this.create();
  }

  create() {
    if (!window.uPlot) {
      this.area.hidden = true;
      this.empty.hidden = false;
      this.empty.textContent = 'chart library failed to load (/vendor/uPlot.iife.min.js)';
      return;
    }
    const fg = cssColor('--muted');
    const grid = cssColor('--grid');
    const axis = {
      stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1, size: 4 },
      font: '11px system-ui, sans-serif',
    };
    const ratio = this.kind === 'ratio';
    const opts = {
      width: this.width, height: kHeight,
      legend: { show: false },
      cursor: { sync: { key: 'stallwatch' }, drag: { x: false, y: false }, points: { size: 5 } },
      scales: {
        x: { time: true },
        y: ratio ? { range: [0, 1] } : { range: (u, min, max) => [0, max > 0 ? max * 1.15 : 1] },
      },
      axes: [
        // Ticks on whole seconds: labels are hh:mm:ss, so finer ones would repeat.
        { ...axis, space: 80, incrs: kTimeIncrs, values: (u, vals) => vals.map((v) => clock(v)) },
        { ...axis, size: 52, splits: ratio ? () => [0, 0.25, 0.5, 0.75, 1] : undefined, values: (u, vals) => vals.map((v) => (ratio ? pct(v, 0) : seconds(v))) },
      ],
      series: [
        {},
        { label: 'job mean', stroke: cssColor('--chart-mean'), width: 1.5, fill: ratio ? 'rgba(47,111,219,0.07)' : undefined },
        { label: 'job max', stroke: cssColor('--chart-max'), width: 1, dash: [4, 3] },
        { label: this.rankLabel, stroke: cssColor('--chart-rank'), width: 1.5 },
      ],
      hooks: { setCursor: [(u) => this.showLegend(u.cursor.idx)] },
    };
    this.plot = new window.uPlot(opts, this.data, this.area);
  }

  showLegend(idx) {
    const pick = (col) => (idx === null || idx === undefined ? lastValue(col) : col[idx]);
    const [, mean, max, rank] = this.data;
    const item = (cls, color, label, value) =>
      h('span', {}, h('i', { class: `sw ${cls}`, style: `background:${color};color:${color}` }), `${label} `, h('b', {}, this.fmt(pick(value))));
    replaceChildren(this.legend,
      item('', cssColor('--chart-mean'), 'mean', mean),
      item('dash', cssColor('--chart-max'), 'max', max),
      item('', cssColor('--chart-rank'), this.rankLabel, rank));
  }
}
