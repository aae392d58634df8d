// SPDX-License-Identifier: MIT
// The top bar's live parts: breadcrumbs, the metrics-window selector and the
// connection badge ("live" / "connecting…" / "reconnecting…"). While
// reconnecting the page body is dimmed (body.stale) so old numbers do not pass for new.
import { h, replaceChildren } from './dom.js';
import { windowLabel } from './format.js';

export class Header {
  constructor({ crumbs, windowSelect, conn, onWindow }) {
    this.crumbs = crumbs;
    this.windowSelect = windowSelect;
    this.conn = conn;
    this.onWindow = onWindow;
    this.windowsKey = '';
    this.crumbKey = null;
    this.connKey = '';
  }

  update(s) {
    this.renderCrumbs(s.route.job);
    this.renderWindows(s.windows, s.window);
    this.renderConn(s.conn);
  }

  renderCrumbs(job) {
    if (this.crumbKey === job) return;
    this.crumbKey = job;
    if (!job) {
      replaceChildren(this.crumbs, h('span', { class: 'current' }, 'Jobs'));
      return;
    }
    replaceChildren(this.crumbs, h('a', { href: '#/' }, 'Jobs'), h('span', { class: 'sep', 'aria-hidden': 'true' }, '›'),
      h('span', { class: 'current', 'aria-current': 'page', title: job }, job));
  }

  renderWindows(windows, current) {
    const key = `${windows.join(',')}|${current}`;
    if (key === this.windowsKey) return;
    this.windowsKey = key;
    const label = h('span', { class: 'seg-label' }, 'window');
    replaceChildren(this.windowSelect, label, windows.map((w, i) =>
      h('button', {
        type: 'button', role: 'radio', 'aria-checked': String(w === current), dataset: { window: w },
        title: `metrics over the last ${windowLabel(w)} (${i + 1})`, onclick: () => this.onWindow(w),
      }, windowLabel(w))));
  }

  renderConn(conn) {
    const key = `${conn.state}|${conn.retryAt}`;
    if (key === this.connKey) return;
    this.connKey = key;
    const text = { live: 'live', connecting: 'connecting…', reconnecting: 'reconnecting…' }[conn.state] ?? conn.state;
    this.conn.dataset.state = conn.state;
    this.conn.textContent = text;
    this.conn.title = conn.state === 'live'
      ? 'Receiving live updates from stallwatchd'
      : 'No connection to stallwatchd; retrying with backoff. Figures shown are the last received.';
    document.body.classList.toggle('stale', conn.state === 'reconnecting');
  }
}
