// What each verdict, state and device source means to a user, and the colour
// class it gets. Red/amber only for verdicts that are problems.
import { h } from './dom.js';
import { pct, seconds } from './format.js';

const kVerdicts = {
  'data-starved': { tone: 'bad', label: 'data-starved', help: 'The device idles while the training loop waits for the next batch.' },
  'io-bound': { tone: 'warn', label: 'I/O-bound', help: 'Application I/O is not hidden behind compute.' },
  'host-bound': { tone: 'warn', label: 'host-bound', help: 'The device is idle but not waiting for data: host-side work (Python, launches, syncs) is the limit.' },
  'well-overlapped': { tone: 'ok', label: 'well-overlapped', help: 'Data loading overlaps compute; the device is kept busy.' },
  idle: { tone: '', label: 'idle', help: 'No training activity in this window.' },
};

export const kProxyNote = 'no device signal — compute used as proxy';

export function verdictPill(verdict, extraClass = '') {
  const v = kVerdicts[verdict];
  return h('span', { class: `pill ${v?.tone ?? ''} ${extraClass}`.trim(), title: v?.help ?? '', dataset: { verdict: verdict ?? '' } }, v?.label ?? verdict ?? '—');
}

export function verdictTone(verdict) {
  return kVerdicts[verdict]?.tone ?? '';
}

// One sentence explaining the verdict with the job's numbers (Metrics of the
// job mean for the shown window).
export function verdictSentence(verdict, mean) {
  if (!mean) return kVerdicts[verdict]?.help ?? '';
  switch (verdict) {
    case 'data-starved':
      return `The device waits for data ${pct(mean.data_stall_ratio)} of the time; device idle ${pct(mean.device_idle_ratio)}.`;
    case 'io-bound':
      return `${seconds(mean.unoverlapped_app_io_seconds)} of application I/O not overlapped with compute (overlap ${pct(mean.overlap_ratio)}).`;
    case 'host-bound':
      return `Device idle ${pct(mean.device_idle_ratio)}, but only ${pct(mean.data_stall_ratio)} waiting for data: the host is the limit.`;
    case 'well-overlapped':
      return `Data loading overlaps compute (${pct(mean.overlap_ratio)} overlapped); data stall ${pct(mean.data_stall_ratio)}.`;
    default:
      return kVerdicts[verdict]?.help ?? '';
  }
}

export function stateCell(state) {
  return h('span', { class: `state-dot ${state ?? ''}`, dataset: { state: state ?? '' } }, state ?? '—');
}

export function deviceSourceCell(source) {
  if (source === 'compute-proxy') {
    return h('span', { class: 'tag warn', title: kProxyNote, style: 'margin-left:0' }, 'compute proxy');
  }
  return h('span', {}, source ?? '—');
}
