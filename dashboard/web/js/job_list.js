// SPDX-License-Identifier: MIT
// The home view: every job the collector knows, filterable ("/") and
// sortable, with the empty state that tells a new user how to start.
import { h, replaceChildren } from './dom.js';
import { jobColumns } from './job_columns.js';
import { formatRoute } from './route.js';
import { SortableTable } from './sortable_table.js';

export class JobListView {
  constructor(actions) {
    this.actions = actions;
    this.filter = h('input', {
      type: 'search', class: 'filter', placeholder: 'Filter jobs   /', 'aria-label': 'Filter jobs',
      'aria-keyshortcuts': '/', autocomplete: 'off', spellcheck: 'false',
    });
    this.filter.addEventListener('input', () => actions.setFilter(this.filter.value));
    this.table = new SortableTable({
      caption: 'Jobs',
      columns: jobColumns,
      rowKey: (j) => j.job,
      primary: (j) => ({ text: j.job, href: formatRoute({ job: j.job, window: this.window }) }),
      onSelect: (job) => actions.selectJob(job),
      onActivate: (job) => actions.openJob(job),
      onSort: (sort) => actions.setSort('jobs', sort),
    });
    this.table.element.classList.add('tall');
    this.count = h('span', { class: 'muted' });
    this.body = h('div');
    this.element = h('section', { class: 'panel', 'aria-labelledby': 'jobs-title' },
      h('div', { class: 'panel-head' }, h('h2', { id: 'jobs-title' }, 'Jobs'), this.count, h('span', { class: 'spacer' }), this.filter),
      this.body);
    this.window = null;
  }

  update(s) {
    this.window = s.window;
    if (this.filter.value !== s.filter && document.activeElement !== this.filter) this.filter.value = s.filter;
    const jobs = s.jobs;
    // The tick and window of the figures shown (see JobView).
    this.element.dataset.tick = String(s.jobsTick ?? '');
    this.element.dataset.window = s.window;
    if (jobs === null) {
      this.count.textContent = '';
      this.show(h('div', { class: 'empty' }, s.conn.state === 'live' ? 'loading jobs…' : `waiting for stallwatchd at ${location.host}…`));
      return;
    }
    const needle = s.filter.trim().toLowerCase();
    const shown = needle ? jobs.filter((j) => j.job.toLowerCase().includes(needle)) : jobs;
    const active = jobs.filter((j) => j.state === 'active').length;
    this.count.textContent = `${jobs.length} job${jobs.length === 1 ? '' : 's'} · ${active} active`;
    if (!jobs.length) {
      this.show(h('div', { class: 'empty', dataset: { empty: 'jobs' } },
        h('strong', {}, 'no jobs yet'),
        'start a training job with ', h('code', {}, 'python -m stallwatch.run your_script.py'),
        h('div', { class: 'muted', style: 'margin-top:6px' }, 'It appears here within a second of its first event.')));
      return;
    }
    if (!shown.length) {
      this.show(h('div', { class: 'empty' }, `no job matches “${s.filter}”`));
      return;
    }
    this.show(this.table.element);
    this.table.update(shown, { sort: s.sort.jobs, selected: s.selectedJob, context: { window: s.window, nowNs: s.nowNs } });
  }

  show(node) {
    if (this.body.firstChild !== node) replaceChildren(this.body, node);
  }

  move(delta) {
    const key = this.table.move(delta);
    if (key !== null) {
      this.table.select(key);
      this.actions.selectJob(key);
    }
  }

  selected() {
    return this.table.selected ?? this.table.order[0] ?? null;
  }

  focusFilter() {
    this.filter.focus();
    this.filter.select();
  }

  focusTable() {
    this.table.focusSelected();
  }
}
