// SPDX-License-Identifier: MIT
// The sentence under a job's verdict, with the numbers it rests on (the job
// mean's Metrics for the shown window, docs/api.md). It never says more than
// those numbers show: where one is undefined (overlap without application
// I/O) it says what was measured instead. Pure: node --test runs it.
import { pct, seconds } from './format.js';

const defined = (v) => v !== null && v !== undefined && Number.isFinite(v);

// A vocabulary meaning ("the device idles while ...") as a sentence.
export function asSentence(clause) {
  if (!clause) return '';
  return `${clause[0].toUpperCase()}${clause.slice(1)}.`;
}

// `meaning`: the verdict's clause from the vocabulary, said when there are no
// numbers (or no sentence for this verdict).
export function verdictSentence(verdict, mean, meaning) {
  if (!mean) return asSentence(meaning);
  switch (verdict) {
    case 'data-starved':
      return `The device waits for data ${pct(mean.data_stall_ratio)} of the time; device idle ${pct(mean.device_idle_ratio)}.`;
    case 'io-bound':
      if (!defined(mean.overlap_ratio)) {
        return `${seconds(mean.unoverlapped_all_io_seconds)} of system I/O not overlapped with compute (no application I/O in this window).`;
      }
      return `${seconds(mean.unoverlapped_app_io_seconds)} of application I/O not overlapped with compute (overlap ${pct(mean.overlap_ratio)}).`;
    case 'host-bound':
      return `Device idle ${pct(mean.device_idle_ratio)}, but only ${pct(mean.data_stall_ratio)} waiting for data: the host is the limit.`;
    case 'well-overlapped':
      if (!defined(mean.overlap_ratio)) {
        return `No application I/O in this window, so none to overlap; data stall ${pct(mean.data_stall_ratio)}, device idle ${pct(mean.device_idle_ratio)}.`;
      }
      if (mean.overlap_ratio < 0.5) {
        return `Little application I/O: ${seconds(mean.unoverlapped_app_io_seconds)} not overlapped with compute (overlap ${pct(mean.overlap_ratio)}); data stall ${pct(mean.data_stall_ratio)}.`;
      }
      return `Data loading overlaps compute (${pct(mean.overlap_ratio)} overlapped); data stall ${pct(mean.data_stall_ratio)}.`;
    default:
      return asSentence(meaning);
  }
}
