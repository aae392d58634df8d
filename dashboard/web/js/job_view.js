// SPDX-License-Identifier: MIT
// One job: summary, per-rank table, charts over time and the live timeline
// of the selected rank. Receives the whole page state on each render and the
// rank to show; the charts and timeline fetch their own history.
import { ChartsPanel } from './charts_panel.js';
import { h } from './dom.js';
import { JobSummary } from './job_summary.js';
import { rankColumns } from './rank_columns.js';
import { SortableTable } from './sortable_table.js';
import { TimelinePanel } from './timeline_panel.js';

// The rank to show: the one in the URL if the job has it, else the
// straggler of the window, else the first rank.
export function effectiveRank(s) {
  const ranks = s.detail?.ranks ?? [];
  if (ranks.some((r) => r.rank === s.route.rank)) return s.route.rank;
  const straggler = s.detail?.summary?.[s.window]?.straggler_rank;
  if (ranks.some((r) => r.rank === straggler)) return straggler;
  return ranks.length ? ranks[0].rank : null;
}

export class JobView {
  constructor(actions, tooltip) {
    this.actions = actions;
    this.summary = new JobSummary();
    this.table = new SortableTable({
      caption: 'Ranks of this job',
      columns: rankColumns,
      rowKey: (r) => r.rank,
      primary: (r) => ({ text: String(r.rank) }),
      onSelect: (rank) => actions.selectRank(rank),
      onSort: (sort) => actions.setSort('ranks', sort),
    });
    this.rankCount = h('span', { class: 'muted' });
    this.ranks = h('section', { class: 'panel', 'aria-labelledby': 'ranks-title' },
      h('div', { class: 'panel-head' }, h('h2', { id: 'ranks-title' }, 'Ranks'), this.rankCount, h('span', { class: 'spacer' }),
        h('span', { class: 'muted' }, 'select a rank (j/k) to chart and trace it')),
      this.table.element);
    this.charts = new ChartsPanel();
    this.timeline = new TimelinePanel({ tooltip, onSpan: (span) => actions.setSpan(span) });
    this.status = h('section', { class: 'panel empty', role: 'status' });
    this.content = h('div', { class: 'job-view' }, this.summary.element, this.ranks, this.timeline.element, this.charts.element);
    this.element = h('div', { class: 'job-view' }, this.status, this.content);
  }

  update(s, rank) {
    const job = s.route.job;
    const detail = s.detail;
    if (!detail) {
      this.status.hidden = false;
      this.status.textContent = s.detailError ?? `waiting for job “${job}”…`;
      this.content.hidden = true;
      delete this.element.dataset.tick;
      this.deactivate();
      return;
    }
    this.status.hidden = true;
    this.content.hidden = false;
    // The tick and window of the figures shown, for tools and tests that
    // compare the page with the API at the same tick.
    this.element.dataset.tick = String(detail.tick ?? '');
    this.element.dataset.window = s.window;
    const ranks = detail.ranks ?? [];
    const straggler = detail.summary?.[s.window]?.straggler_rank ?? null;
    const active = ranks.filter((r) => r.state === 'active').length;
    this.rankCount.textContent = `${ranks.length} rank${ranks.length === 1 ? '' : 's'} · ${active} active`;
    this.summary.update(detail, s.window);
    this.table.update(ranks, { sort: s.sort.ranks, selected: rank, context: { window: s.window, straggler, nowNs: s.nowNs } });
    this.charts.setTarget(job, s.window, false, detail.start_ns);
    this.charts.update(rank, ranks.some((r) => r.device_source === 'compute-proxy'));
    this.timeline.setTarget(job, rank, s.span);
  }

  onTick(detail, nowNs) {
    this.charts.onTick(detail, nowNs);
  }

  reload() {
    this.charts.setTarget(this.charts.job, this.charts.window, true);
  }

  deactivate() {
    this.timeline.setTarget(null, null, this.timeline.span);
    this.charts.setTarget(null, null);
  }

  move(delta) {
    const key = this.table.move(delta);
    if (key !== null) {
      this.table.select(key);
      this.actions.selectRank(key);
    }
  }

  focusTable() {
    this.table.focusSelected();
  }
}
