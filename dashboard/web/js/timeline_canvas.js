// SPDX-License-Identifier: MIT
// Draws a timeline model (timeline_model.js) on a canvas, Nsight-style:
// process groups, a device lane then thread lanes, nested rows, regions
// coloured by class, open regions striped, marks as ticks (epochs as dashed
// lines across all lanes), a time axis relative to the newest data ("now").
// Regions are batched per colour, so thousands of them draw in a few ms.
// Hover shows a tooltip. Main thread only; owns the canvas, not the data.
import { hitRow, kClasses } from './timeline_model.js';
import { rasterRow } from './timeline_raster.js';
import { seconds } from './format.js';
import { cssColor } from './theme.js';
import { h, replaceChildren } from './dom.js';

const kGutter = 150;
const kAxis = 20;
const kRowH = 14;
const kLanePad = 3;
const kGroupH = 18;

function tickStep(spanSeconds) {
  for (const step of [0.5, 1, 2, 5, 10, 15, 30, 60]) if (spanSeconds / step <= 12) return step;
  return 120;
}

function isEpoch(name) {
  return /^epoch/.test(name);
}

export class TimelineCanvas {
  constructor(tooltip) {
    this.tooltip = tooltip;
    this.canvas = h('canvas', { class: 'timeline-canvas', role: 'img', 'aria-label': 'timeline' });
    this.ctx = this.canvas.getContext('2d');
    this.model = null;
    this.layout = [];
    this.hover = null;
    this.width = 800;
    this.stripes = null;
    this.canvas.addEventListener('mousemove', (ev) => this.onMove(ev));
    this.canvas.addEventListener('mouseleave', () => this.setHover(null, null));
    document.addEventListener('themechange', () => {
      this.stripes = null;
      this.draw();
    });
  }

  setModel(model, width = this.width) {
    this.model = model;
    this.width = Math.max(300, Math.floor(width));
    this.draw();
  }

  resize(width) {
    this.width = Math.max(300, Math.floor(width));
    this.draw();
  }

  computeLayout() {
    const layout = [];
    let y = kAxis;
    let group = null;
    for (const lane of this.model.lanes) {
      if (lane.group !== group) {
        group = lane.group;
        layout.push({ header: group, y });
        y += kGroupH;
      }
      const height = lane.rows.length * kRowH + 2 * kLanePad;
      layout.push({ lane, y, height });
      y += height;
    }
    return { layout, height: y + 6 };
  }

  stripePattern() {
    if (this.stripes) return this.stripes;
    const c = document.createElement('canvas');
    c.width = 6;
    c.height = 6;
    const g = c.getContext('2d');
    g.strokeStyle = 'rgba(255,255,255,0.55)';
    g.lineWidth = 1.5;
    g.beginPath();
    g.moveTo(0, 6);
    g.lineTo(6, 0);
    g.stroke();
    this.stripes = this.ctx.createPattern(c, 'repeat');
    return this.stripes;
  }

  x(t) {
    return kGutter + (t / this.model.span) * (this.width - kGutter - 8);
  }

  draw() {
    if (!this.model) return;
    const { layout, height } = this.computeLayout();
    this.layout = layout;
    const dpr = window.devicePixelRatio || 1;
    if (this.canvas.width !== Math.round(this.width * dpr) || this.canvas.height !== Math.round(height * dpr)) {
      this.canvas.width = Math.round(this.width * dpr);
      this.canvas.height = Math.round(height * dpr);
      this.canvas.style.height = `${height}px`;
    }
    const ctx = this.ctx;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.width, height);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    this.drawAxis(height);
    this.drawLanes();
    this.drawRegions();
    this.drawMarks(height);
    if (this.hover?.region) this.outline(this.hover.region, this.hover.entry);
  }

  drawAxis(height) {
    const ctx = this.ctx;
    const spanS = this.model.span / 1e9;
    const step = tickStep(spanS);
    ctx.fillStyle = cssColor('--muted');
    ctx.strokeStyle = cssColor('--grid');
    ctx.lineWidth = 1;
    ctx.textAlign = 'center';
    for (let back = 0; back <= spanS + 1e-9; back += step) {
      const x = Math.round(this.x(this.model.span - back * 1e9)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(x, kAxis - 4);
      ctx.lineTo(x, height);
      ctx.stroke();
      const label = back === 0 ? 'now' : `−${back} s`;
      ctx.textAlign = back === 0 ? 'right' : 'center';
      ctx.fillText(label, back === 0 ? x + 4 : x, kAxis / 2);
    }
    ctx.textAlign = 'left';
  }

  drawLanes() {
    const ctx = this.ctx;
    for (const e of this.layout) {
      if (e.header) {
        ctx.fillStyle = cssColor('--fg');
        ctx.font = '600 11px system-ui, sans-serif';
        ctx.fillText(e.header, 8, e.y + kGroupH / 2 + 1);
        ctx.strokeStyle = cssColor('--border');
        ctx.beginPath();
        ctx.moveTo(0, e.y + 0.5);
        ctx.lineTo(this.width, e.y + 0.5);
        ctx.stroke();
        continue;
      }
      ctx.fillStyle = cssColor('--panel-2');
      ctx.fillRect(kGutter, e.y + 1, this.width - kGutter - 8, e.height - 2);
      ctx.font = '11px system-ui, sans-serif';
      ctx.fillStyle = e.lane.kind === 'device' ? cssColor('--c-device_busy') : e.lane.kind === 'peers' ? cssColor('--c-peer_wait') : cssColor('--muted');
      ctx.fillText(e.lane.kind === 'device' && e.lane.tid === null ? 'device (GPU)' : e.lane.label, 18, e.y + kLanePad + kRowH / 2);
    }
  }

  // Regions are painted as pixel runs (timeline_raster.js), so sub-pixel
  // regions at long spans keep their true proportions; open-region stripes
  // and names are drawn over the regions' own extents.
  drawRegions() {
    const ctx = this.ctx;
    const span = this.model.span;
    const plotWidth = this.width - kGutter - 8;
    const byClass = new Map(kClasses.map((c) => [c, []]));
    const open = [];
    const labels = [];
    for (const e of this.layout) {
      if (!e.lane) continue;
      e.lane.rows.forEach((row, d) => {
        const y = e.y + kLanePad + d * kRowH;
        for (const run of rasterRow(row, span, plotWidth)) byClass.get(run.cls).push([kGutter + run.x, y + 1, run.w, kRowH - 2]);
        for (const r of row) {
          const wide = r.e - r.s > (48 / plotWidth) * span;
          if ((!r.open && !wide) || r.e < 0 || r.s > span) continue;
          const x0 = this.x(Math.max(0, r.s));
          const rect = [x0, y + 1, Math.max(1, this.x(Math.min(span, r.e)) - x0), kRowH - 2];
          if (r.open) open.push(rect);
          if (rect[2] > 48) labels.push([rect, r.name]);
        }
      });
    }
    for (const [cls, rects] of byClass) {
      if (!rects.length) continue;
      ctx.fillStyle = cssColor(`--c-${cls}`);
      for (const [x, y, w, hh] of rects) ctx.fillRect(x, y, w, hh);
    }
    if (open.length) {
      ctx.fillStyle = this.stripePattern();
      for (const [x, y, w, hh] of open) ctx.fillRect(x, y, w, hh);
    }
    ctx.fillStyle = cssColor('--accent-fg');
    ctx.font = '10.5px system-ui, sans-serif';
    for (const [[x, y, w, hh], name] of labels) {
      ctx.save();
      ctx.beginPath();
      ctx.rect(x + 3, y, w - 6, hh);
      ctx.clip();
      ctx.fillText(name, x + 4, y + hh / 2 + 0.5);
      ctx.restore();
    }
  }

  drawMarks(height) {
    const ctx = this.ctx;
    ctx.strokeStyle = cssColor('--c-mark');
    ctx.fillStyle = cssColor('--c-mark');
    for (const e of this.layout) {
      if (!e.lane) continue;
      for (const m of this.shownMarks(e.lane)) {
        if (m.t < 0 || m.t > this.model.span) continue;
        const x = Math.round(this.x(m.t)) + 0.5;
        if (isEpoch(m.name)) {
          ctx.save();
          ctx.setLineDash([3, 3]);
          ctx.globalAlpha = 0.6;
          ctx.beginPath();
          ctx.moveTo(x, kAxis);
          ctx.lineTo(x, height);
          ctx.stroke();
          ctx.restore();
          // Right of the line, or left of it when it would run off the canvas.
          const label = `${m.name.replace('epoch.', 'epoch ')} ${m.value ?? ''}`.trim();
          const w = ctx.measureText(label).width;
          ctx.fillText(label, x + 3 + w > this.width - 8 ? x - 3 - w : x + 3, kAxis + 6);
        }
        ctx.globalAlpha = 0.75;
        ctx.beginPath();
        ctx.moveTo(x - 3, e.y);
        ctx.lineTo(x + 3, e.y);
        ctx.lineTo(x, e.y + 4);
        ctx.closePath();
        ctx.fill();
        ctx.globalAlpha = 1;
      }
    }
  }

  // Step ticks closer than ~6 px apart would only darken the lane: then only
  // epochs are marked (and hoverable).
  shownMarks(lane) {
    const dense = lane.marks.length > (this.width - kGutter - 8) / 6;
    return dense ? lane.marks.filter((m) => isEpoch(m.name)) : lane.marks;
  }

  outline(r, e) {
    const ctx = this.ctx;
    const d = e.lane.rows.findIndex((row) => row.includes(r));
    const x0 = this.x(Math.max(0, r.s));
    const x1 = this.x(Math.min(this.model.span, r.e));
    ctx.strokeStyle = cssColor('--fg');
    ctx.lineWidth = 1.5;
    ctx.strokeRect(x0 - 0.5, e.y + kLanePad + d * kRowH + 0.5, Math.max(2, x1 - x0) + 1, kRowH - 1);
    ctx.lineWidth = 1;
  }

  onMove(ev) {
    if (!this.model) return;
    const rect = this.canvas.getBoundingClientRect();
    const px = ev.clientX - rect.left;
    const py = ev.clientY - rect.top;
    const entry = this.layout.find((e) => e.lane && py >= e.y && py < e.y + e.height);
    if (!entry || px < kGutter) return this.setHover(null, ev);
    const t = ((px - kGutter) / (this.width - kGutter - 8)) * this.model.span;
    const tol = (2 / (this.width - kGutter - 8)) * this.model.span;
    const mark = this.shownMarks(entry.lane).find((m) => Math.abs(m.t - t) <= tol * 2 && py < entry.y + 6);
    if (mark) return this.setHover({ mark, entry }, ev);
    const d = Math.floor((py - entry.y - kLanePad) / kRowH);
    const row = entry.lane.rows[Math.max(0, Math.min(entry.lane.rows.length - 1, d))];
    const region = hitRow(row, t, tol);
    return this.setHover(region ? { region, entry } : null, ev);
  }

  setHover(hover, ev) {
    const same = hover?.region === this.hover?.region && hover?.mark === this.hover?.mark;
    this.hover = hover;
    if (!same) this.draw();
    if (!hover) {
      this.tooltip.hidden = true;
      return;
    }
    const now = this.model.span;
    if (hover.mark) {
      const m = hover.mark;
      replaceChildren(this.tooltip, h('div', { class: 'tt-name' }, m.name),
        h('div', { class: 'tt-row' }, `value ${m.value ?? '—'} · ${seconds((now - m.t) / 1e9)} ago`));
    } else {
      const r = hover.region;
      const dur = seconds((Math.min(r.e, now) - r.s) / 1e9);
      replaceChildren(this.tooltip,
        h('div', { class: 'tt-name' }, r.name || '(unnamed)'),
        h('div', { class: 'tt-row' }, `${r.cat || '—'} · ${r.classes.join(', ')}`),
        h('div', { class: 'tt-row' }, r.open ? `${dur} so far (still open)` : `duration ${dur}`),
        h('div', { class: 'tt-row' }, r.cls === 'peer_wait' ? `started ${seconds((now - r.s) / 1e9)} ago · in a collective call` : `started ${seconds((now - r.s) / 1e9)} ago · pid ${r.pid} · tid ${r.tid}`));
    }
    this.tooltip.hidden = false;
    const x = Math.min(ev.clientX + 14, window.innerWidth - this.tooltip.offsetWidth - 8);
    const y = ev.clientY + 16 + this.tooltip.offsetHeight > window.innerHeight ? ev.clientY - this.tooltip.offsetHeight - 10 : ev.clientY + 16;
    this.tooltip.style.left = `${x}px`;
    this.tooltip.style.top = `${y}px`;
  }
}
