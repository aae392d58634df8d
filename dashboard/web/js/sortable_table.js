// SPDX-License-Identifier: MIT
// A keyed, sortable data table used for jobs and ranks. Rows are updated in
// place (matched by key) so focus and selection survive the twice-a-second
// refresh; only cells whose content changed are touched. Headers are buttons
// (click, Enter or Space sorts); rows use a roving tabindex on their first
// cell's link/button so Tab enters the table once. Each cell carries
// data-field and data-value (the raw API value) for tests and tooling.
// Main thread only; it renders rows it is given and owns no data.
import { h } from './dom.js';
import { nextSort, sortRows } from './table_sort.js';

export class SortableTable {
  // columns: [{ key, label, title?, num?, pref?, value(row, ctx), render?(row, ctx) }]
  // The first column is the row's focus target: render it with primary(row) -> { text, href? }.
  constructor({ caption, columns, rowKey, primary, onSelect, onActivate, onSort }) {
    this.columns = columns;
    this.rowKey = rowKey;
    this.primary = primary;
    this.onSelect = onSelect;
    this.onActivate = onActivate;
    this.onSort = onSort;
    this.rows = new Map();
    this.order = [];
    this.sort = null;
    this.selected = null;
    this.headers = new Map();

    const headRow = h('tr');
    for (const col of columns) {
      const th = h('th', { scope: 'col', class: col.num ? 'num' : null, title: col.title ?? null },
        h('button', { type: 'button', onclick: () => this.onSort(nextSort(this.sort, col.key, col.pref ?? 'desc')) }, col.label));
      this.headers.set(col.key, th);
      headRow.append(th);
    }
    this.tbody = h('tbody');
    this.table = h('table', { class: 'data' }, h('caption', { class: 'visually-hidden' }, caption), h('thead', {}, headRow), this.tbody);
    this.element = h('div', { class: 'table-wrap' }, this.table);
  }

  update(rows, { sort, selected, context }) {
    this.sort = sort;
    this.selected = selected;
    for (const [key, th] of this.headers) {
      if (sort && sort.key === key) th.setAttribute('aria-sort', sort.dir === 'asc' ? 'ascending' : 'descending');
      else th.removeAttribute('aria-sort');
    }
    const col = this.columns.find((c) => c.key === sort?.key);
    const sorted = col ? sortRows(rows, (r) => col.value(r, context), sort.dir) : rows;
    const seen = new Set();
    const order = [];
    for (const row of sorted) {
      const key = this.rowKey(row);
      seen.add(key);
      order.push(key);
      this.renderRow(key, row, context);
    }
    for (const [key, entry] of this.rows) {
      if (!seen.has(key)) {
        entry.tr.remove();
        this.rows.delete(key);
      }
    }
    this.reorder(order);
    this.order = order;
    this.applySelection();
  }

  renderRow(key, row, context) {
    let entry = this.rows.get(key);
    if (!entry) {
      const p = this.primary(row);
      const link = p.href
        ? h('a', { class: 'row-link', href: p.href, tabindex: '-1' })
        : h('button', { type: 'button', class: 'row-link', tabindex: '-1' });
      link.addEventListener('focus', () => this.onSelect(key));
      const tr = h('tr', { dataset: { key: String(key) } });
      tr.addEventListener('click', (ev) => {
        if (ev.target.closest('a')) return;
        this.onSelect(key);
        if (this.onActivate) this.onActivate(key);
      });
      const cells = this.columns.map((c, i) => {
        const td = h(i === 0 ? 'th' : 'td', { class: c.num ? 'num' : null, dataset: { field: c.key } });
        if (i === 0) {
          td.setAttribute('scope', 'row');
          td.append(link);
        }
        tr.append(td);
        return { td, html: null };
      });
      entry = { tr, cells, link };
      this.rows.set(key, entry);
    }
    const p = this.primary(row);
    if (entry.link.textContent !== p.text) entry.link.textContent = p.text;
    if (p.href && entry.link.getAttribute('href') !== p.href) entry.link.setAttribute('href', p.href);
    this.columns.forEach((c, i) => {
      const cell = entry.cells[i];
      const raw = c.value(row, context);
      const rawText = raw === null || raw === undefined ? '' : String(raw);
      if (cell.td.dataset.value !== rawText) cell.td.dataset.value = rawText;
      if (i === 0) {
        const extra = c.render ? c.render(row, context) : null;
        this.setExtra(cell, extra);
        return;
      }
      const content = c.render ? c.render(row, context) : rawText;
      if (typeof content === 'string') {
        if (cell.html !== null || cell.td.textContent !== content) {
          cell.td.textContent = content;
          cell.html = null;
        }
      } else {
        const html = content.outerHTML;
        if (cell.html !== html) {
          cell.td.replaceChildren(content);
          cell.html = html;
        }
      }
    });
    entry.tr.classList.toggle('dim', row.state === 'finished');
  }

  setExtra(cell, extra) {
    const html = extra ? extra.outerHTML : '';
    if (cell.html === html) return;
    cell.td.querySelector('.extra')?.remove();
    if (extra) {
      extra.classList.add('extra');
      cell.td.append(extra);
    }
    cell.html = html;
  }

  reorder(order) {
    const current = Array.from(this.tbody.children, (tr) => tr.dataset.key);
    if (current.length === order.length && current.every((k, i) => k === String(order[i]))) return;
    const focused = this.tbody.contains(document.activeElement);
    for (const key of order) this.tbody.append(this.rows.get(key).tr);
    if (focused) this.focusSelected();
  }

  applySelection() {
    const target = this.rows.has(this.selected) ? this.selected : this.order[0];
    for (const [key, entry] of this.rows) {
      const on = key === this.selected;
      if ((entry.tr.getAttribute('aria-selected') === 'true') !== on) entry.tr.setAttribute('aria-selected', String(on));
      const tab = key === target ? '0' : '-1';
      if (entry.link.getAttribute('tabindex') !== tab) entry.link.setAttribute('tabindex', tab);
    }
  }

  // Moves the selection by `delta` rows in display order; returns the new key.
  move(delta) {
    if (!this.order.length) return null;
    const i = this.order.indexOf(this.selected);
    const next = i < 0 ? (delta > 0 ? 0 : this.order.length - 1) : Math.max(0, Math.min(this.order.length - 1, i + delta));
    return this.order[next];
  }

  // Selects `key` now (without waiting for the next update) and focuses its row.
  select(key) {
    this.selected = key;
    this.applySelection();
    this.focusSelected();
  }

  focusSelected() {
    const entry = this.rows.get(this.selected) ?? this.rows.get(this.order[0]);
    if (entry) {
      entry.link.focus({ preventScroll: true });
      entry.tr.scrollIntoView({ block: 'nearest' });
    }
  }
}
