// SPDX-License-Identifier: MIT
// The NVML counters of a rank row (docs/api.md GpuCounters) as the page shows
// them: utilization beside the exact device-idle figure, and one line per
// device for the rank card. Pure functions of the API objects, no DOM.
import { DASH, windowLabel } from './format.js';

export const kNvmlNote = 'NVML utilization counts a 1 s sample as busy when some kernel ran during it: a GPU '
  + 'running one small kernel at a time reads 100 %. A cross-check, not device-busy time; Device idle is the exact signal.';

const finite = (v) => typeof v === 'number' && Number.isFinite(v);

function average(values) {
  const xs = values.filter(finite);
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

// Mean NVML utilization (percent) of the rank's devices over `window`, or null.
export function nvmlUtilization(row, window) {
  return average((row?.gpu_counters ?? []).map((g) => g?.utilization_percent?.mean?.[window]));
}

// 8589934592 -> "8.0 GiB"
export function bytes(n) {
  if (!finite(n)) return DASH;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = Math.abs(n);
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${n < 0 ? '-' : ''}${u === 0 ? v.toFixed(0) : v.toFixed(1)} ${units[u]}`;
}

const percent = (v) => (finite(v) ? `${v.toFixed(0)} %` : DASH);

// "NVML util 93 % (60 s mean)", or null when the rank has no NVML counters.
export function nvmlUtilText(row, window) {
  if (!(row?.gpu_counters ?? []).length) return null;
  return `NVML util ${percent(nvmlUtilization(row, window))} (${windowLabel(window)} mean)`;
}

// One line per device: "GPU 0: 93 % now, 92 % 60 s mean · SM 1410 MHz · 8.0 GiB · 250 W · 0.4 s ago".
export function gpuDeviceLines(row, window) {
  return (row?.gpu_counters ?? []).map((g) => {
    const parts = [`GPU ${g.device}: ${percent(g.utilization_percent?.latest)} now, ${percent(g.utilization_percent?.mean?.[window])} ${windowLabel(window)} mean`];
    if (finite(g.sm_clock_mhz?.latest)) parts.push(`SM ${g.sm_clock_mhz.latest.toFixed(0)} MHz`);
    if (finite(g.memory_used_bytes?.latest)) parts.push(bytes(g.memory_used_bytes.latest));
    if (finite(g.power_watts?.latest)) parts.push(`${g.power_watts.latest.toFixed(0)} W`);
    if (finite(g.age_seconds)) parts.push(g.age_seconds < 1 ? 'now' : `${Math.floor(g.age_seconds)} s ago`);
    return parts.join(' · ');
  });
}

// The tooltip of the NVML cell: every device, then what NVML measures.
export function nvmlTooltip(row, window) {
  return [...gpuDeviceLines(row, window), '', kNvmlNote].join('\n');
}
