// SPDX-License-Identifier: MIT
// What each verdict, state and device source is called and means to a user,
// and the colour class it gets. The words and tones are the catalog's
// (collector/catalog), served as the generated /js/vocabulary.js: the
// terminal dashboard shows the same. Red/amber only for verdicts that are
// problems.
import { h } from './dom.js';
import { kCauses, kDeviceSources, kRankStates, kVerdicts } from './vocabulary.js';
import { asSentence, verdictSentence as sentenceWithNumbers } from './verdict_sentence.js';

// The CSS class of a tone: a dim verdict (idle) is a plain pill.
const kToneClass = { ok: 'ok', warn: 'warn', bad: 'bad', dim: '' };

export const kProxyNote = kDeviceSources['compute-proxy'].meaning;

export function verdictPill(verdict, extraClass = '') {
  const v = kVerdicts[verdict];
  return h('span', { class: `pill ${kToneClass[v?.tone] ?? ''} ${extraClass}`.trim(), title: asSentence(v?.meaning), dataset: { verdict: verdict ?? '' } }, v?.label ?? verdict ?? '—');
}

// The cause of a data-starved verdict (storage, preprocessing, unknown) as a
// tag; null for none, or from a daemon that sends no cause.
export function causeTag(cause) {
  const c = kCauses[cause];
  if (!c || cause === 'none') return null;
  return h('span', { class: `tag ${kToneClass[c.tone] ?? ''}`.trim(), title: asSentence(c.meaning), dataset: { cause } }, c.label);
}

// The verdict pill with its cause beside it.
export function verdictCell(verdict, cause) {
  const tag = causeTag(cause);
  return h('span', { class: 'verdict-cell' }, verdictPill(verdict), tag ? [' ', tag] : null);
}

export function verdictTone(verdict) {
  return kToneClass[kVerdicts[verdict]?.tone] ?? '';
}

// One sentence explaining the verdict with the job's numbers (Metrics of the
// job mean for the shown window).
export function verdictSentence(verdict, mean) {
  return sentenceWithNumbers(verdict, mean, kVerdicts[verdict]?.meaning);
}

export function stateCell(state) {
  const s = kRankStates[state];
  return h('span', { class: `state-dot ${state ?? ''}`, title: s?.meaning, dataset: { state: state ?? '' } }, s?.label ?? state ?? '—');
}

export function deviceSourceCell(source) {
  const d = kDeviceSources[source];
  if (d?.tone === 'warn') {
    return h('span', { class: `tag ${d.tone}`, title: d.meaning, style: 'margin-left:0' }, d.label);
  }
  return h('span', { title: d?.meaning }, d?.label ?? source ?? '—');
}
