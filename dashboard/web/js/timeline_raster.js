// SPDX-License-Identifier: MIT
// Turns one timeline row (regions sorted by start, times in ns from the
// model's `from`) into the pixel runs to paint: every pixel column gets the
// class that covers most of it, and neighbouring columns of one class merge
// into one run. So a 60 s span of 100 ms steps (fetch 60 ms, then three
// short compute regions) still reads as 60 % fetch instead of whichever
// class is drawn last, and regions narrower than a pixel stay visible when
// nothing else is in their column. Pure, no DOM.
import { kClasses } from './timeline_model.js';

// Returns [{ cls, x, w }] in pixels from the row's left edge; `width` is the
// row's drawable width in pixels, `span` the time it shows (ns).
export function rasterRow(row, span, width) {
  const cols = Math.max(1, Math.floor(width));
  const scale = cols / span;
  const cover = new Map();
  for (const r of row) {
    if (r.e < 0 || r.s > span) continue;
    const a = Math.max(0, r.s) * scale;
    const b = Math.max(Math.min(span, r.e) * scale, a + 1e-3);
    let col = cover.get(r.cls);
    if (!col) {
      col = new Float64Array(cols);
      cover.set(r.cls, col);
    }
    const last = Math.min(cols - 1, Math.ceil(b) - 1);
    for (let c = Math.min(cols - 1, Math.floor(a)); c <= last; c += 1) col[c] += Math.min(b, c + 1) - Math.max(a, c);
  }
  const order = kClasses.filter((cls) => cover.has(cls));
  const runs = [];
  let current = null;
  for (let c = 0; c < cols; c += 1) {
    let best = null;
    let most = 0;
    for (const cls of order) {
      const v = cover.get(cls)[c];
      if (v > most) {
        most = v;
        best = cls;
      }
    }
    if (current && current.cls === best) {
      current.w += 1;
    } else {
      current = best ? { cls: best, x: c, w: 1 } : null;
      if (current) runs.push(current);
    }
  }
  return runs;
}
