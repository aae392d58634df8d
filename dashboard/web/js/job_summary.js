// SPDX-License-Identifier: MIT
// The job's headline: verdict with a one-line explanation, then the job-level
// figures for the selected window (mean over ranks, worst rank underneath),
// and the compute-proxy banner when device idle is not measured on a device.
// Rebuilt from the JobDetail body on every update; owns no state.
import { clockWarningText } from './clock_warning.js';
import { h, replaceChildren } from './dom.js';
import { pct, rate, seconds, windowLabel } from './format.js';
import { causeTag, kProxyNote, verdictPill, verdictSentence } from './verdict.js';

function kpi(label, value, sub, tone = '', field = '') {
  return h('div', { dataset: { kpi: field } },
    h('div', { class: 'kpi-label' }, label),
    h('div', { class: `kpi-value ${tone}`.trim() }, value),
    h('div', { class: 'kpi-sub' }, sub));
}

// "Held back by rank 3: data-starved (storage), costs the other 3 ranks 38 % of their time."
// (docs/api.md, "held_back"); null when nobody holds the job back.
function heldBackLine(held) {
  if (!held || !(held.ranks ?? []).length) return null;
  const named = held.ranks
    .map((r) => `rank ${r.rank}: ${r.verdict}${r.cause ? ` (${r.cause})` : ''}`)
    .join('; ');
  const others = held.other_ranks === 1 ? 'the other rank' : `the other ${held.other_ranks} ranks`;
  return h('div', { class: 'banner', role: 'note', dataset: { heldBack: 'true' } },
    h('strong', {}, `Held back by ${named}`),
    h('span', {}, `, costs ${others} ${pct(held.cost_ratio)} of their time waiting for peers.`));
}

function rankList(ranks) {
  if (ranks.length > 6) return `${ranks.length} ranks`;
  return `rank${ranks.length > 1 ? 's' : ''} ${ranks.join(', ')}`;
}

export class JobSummary {
  constructor() {
    this.element = h('section', { class: 'panel', 'aria-label': 'Job summary' });
  }

  update(job, window) {
    const agg = job.summary?.[window] ?? {};
    const mean = agg.mean ?? null;
    const max = agg.max ?? null;
    const straggler = agg.straggler_rank;
    const ranks = job.ranks ?? [];
    const active = ranks.filter((r) => r.state === 'active').length;
    const samples = ranks.reduce((sum, r) => {
      const v = r.windows?.[window]?.samples_per_second;
      return Number.isFinite(v) ? (sum ?? 0) + v : sum;
    }, null);
    const verdict = agg.verdict ?? job.verdict;
    const worst = straggler === null || straggler === undefined ? '' : ` · rank ${straggler}`;
    const proxyRanks = ranks.filter((r) => r.device_source === 'compute-proxy').map((r) => r.rank);
    let idleLabel = 'Device idle';
    if (proxyRanks.length) idleLabel += proxyRanks.length === ranks.length ? ' (proxy)' : ' (mixed)';

    const grid = h('div', { class: 'summary' },
      h('div', { dataset: { kpi: 'verdict' } },
        h('div', { class: 'kpi-label' }, `Verdict · ${windowLabel(window)}`),
        h('div', {}, verdictPill(verdict, 'verdict-big'), causeTag(agg.cause) ? [' ', causeTag(agg.cause)] : null),
        h('div', { class: 'verdict-line' }, verdictSentence(verdict, mean))),
      kpi('Data stall', pct(mean?.data_stall_ratio), `max ${pct(max?.data_stall_ratio)}${worst}`,
        verdict === 'data-starved' ? 'bad' : '', 'data_stall_ratio'),
      kpi(idleLabel, pct(mean?.device_idle_ratio), `max ${pct(max?.device_idle_ratio)}`,
        verdict === 'host-bound' ? 'warn' : '', 'device_idle_ratio'),
      kpi('Overlap', pct(mean?.overlap_ratio), `unoverlapped app I/O ${seconds(mean?.unoverlapped_app_io_seconds)}`,
        verdict === 'io-bound' ? 'warn' : '', 'overlap_ratio'),
      kpi('Step time p50', seconds(mean?.step_seconds_p50), `p95 ${seconds(mean?.step_seconds_p95)} · max ${seconds(max?.step_seconds_p50)}`, '', 'step_seconds_p50'),
      kpi('Throughput', `${rate(mean?.steps_per_second).replace('/s', '')} steps/s`,
        `${samples === null ? '—' : rate(samples).replace('/s', '')} samples/s · ${active}/${ranks.length} ranks active`, '', 'steps_per_second'));
    if (proxyRanks.length) grid.querySelector('[data-kpi="device_idle_ratio"] .kpi-label').title = kProxyNote;

    const banner = proxyRanks.length
      ? h('div', { class: 'banner', role: 'note', dataset: { proxy: 'true' } },
        h('strong', {}, kProxyNote),
        h('span', {}, `for ${rankList(proxyRanks)}: device idle is the time outside compute regions.`))
      : null;
    const clock = clockWarningText(ranks);
    const clockBanner = clock
      ? h('div', { class: 'banner', role: 'note', dataset: { clockWarning: 'true' } }, h('strong', {}, clock))
      : null;
    replaceChildren(this.element, grid, heldBackLine(agg.held_back), clockBanner, banner);
  }
}
