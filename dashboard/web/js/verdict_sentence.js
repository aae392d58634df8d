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

// What the cause of a data stall rests on, as a second sentence: the share of
// the data loader's time inside I/O calls (loader_io_ratio), or why there is
// none. Empty without a cause (a daemon that sends none).
function causeClause(mean) {
  switch (mean.cause) {
    case 'storage':
      return ` Cause: storage — the data loader spends ${pct(mean.loader_io_ratio)} of its time inside I/O calls.`;
    case 'preprocessing':
      return ` Cause: preprocessing — the data loader spends only ${pct(mean.loader_io_ratio)} of its time inside I/O calls, the rest outside them.`;
    case 'unknown':
      return ' Cause unknown: no I/O calls are captured for this job (run it with --posix).';
    default:
      return '';
  }
}

// What a launch-bound cause rests on: the launch calls' time against the
// device's idle time (launch_idle_ratio). Empty for any other cause.
function launchClause(mean) {
  if (mean.cause !== 'launch-bound') return '';
  return ` Cause: launch-bound — launching kernels takes ${pct(mean.launch_idle_ratio)} of the device's idle time.`;
}

// `meaning`: the verdict's clause from the vocabulary, said when there are no
// numbers (or no sentence for this verdict).
export function verdictSentence(verdict, mean, meaning) {
  if (!mean) return asSentence(meaning);
  switch (verdict) {
    case 'data-starved':
      return `The device waits for data ${pct(mean.data_stall_ratio)} of the time; device idle ${pct(mean.device_idle_ratio)}.${causeClause(mean)}`;
    case 'io-bound':
      if (!defined(mean.overlap_ratio)) {
        return `${seconds(mean.unoverlapped_all_io_seconds)} of system I/O not overlapped with compute (no application I/O in this window).`;
      }
      return `${seconds(mean.unoverlapped_app_io_seconds)} of application I/O not overlapped with compute (overlap ${pct(mean.overlap_ratio)}).`;
    case 'host-bound':
      return `Device idle ${pct(mean.device_idle_ratio)}, but only ${pct(mean.data_stall_ratio)} waiting for data: the host is the limit.${launchClause(mean)}`;
    case 'well-overlapped':
      if (!defined(mean.overlap_ratio)) {
        return `No application I/O in this window, so none to overlap; data stall ${pct(mean.data_stall_ratio)}, device idle ${pct(mean.device_idle_ratio)}.`;
      }
      if (mean.overlap_ratio < 0.5) {
        return `${seconds(mean.unoverlapped_app_io_seconds)} of application I/O not overlapped with compute (overlap ${pct(mean.overlap_ratio)}), yet the device waits for data only ${pct(mean.data_stall_ratio)} of the time.`;
      }
      return `Data loading overlaps compute (${pct(mean.overlap_ratio)} overlapped); data stall ${pct(mean.data_stall_ratio)}.`;
    default:
      return asSentence(meaning);
  }
}
