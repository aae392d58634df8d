// SPDX-License-Identifier: MIT
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DASH } from '../js/format.js';
import { bytes, gpuDeviceLines, kNvmlNote, nvmlTooltip, nvmlUtilization, nvmlUtilText } from '../js/gpu_counters.js';

const counter = (latest, mean) => ({ latest, mean });
const gpu = (device, util, extra = {}) => ({
  device, sampled_ns: 0, age_seconds: 0.4,
  utilization_percent: counter(util.latest, util.mean),
  sm_clock_mhz: counter(1410, {}), memory_used_bytes: counter(8589934592, {}), power_watts: counter(250.4, {}),
  ...extra,
});

const row = {
  gpu_counters: [
    gpu(0, { latest: 95, mean: { '10s': 94, '60s': 93, total: 90 } }),
    gpu(1, { latest: 41, mean: { '10s': 40, '60s': null, total: 42 } }, { power_watts: counter(null, {}), age_seconds: 3.2 }),
  ],
};

test('NVML utilization is the mean over the devices that have one for the window', () => {
  assert.equal(nvmlUtilization(row, '10s'), 67);
  assert.equal(nvmlUtilization(row, '60s'), 93);
  assert.equal(nvmlUtilization(row, '300s'), null);
  assert.equal(nvmlUtilization({ gpu_counters: [] }, '10s'), null);
  assert.equal(nvmlUtilization({}, '10s'), null);
});

test('the cell text names the window and says when a window has no sample', () => {
  assert.equal(nvmlUtilText(row, '60s'), 'NVML util 93 % (60 s mean)');
  assert.equal(nvmlUtilText(row, '300s'), `NVML util ${DASH} (300 s mean)`);
  assert.equal(nvmlUtilText({ gpu_counters: [] }, '60s'), null, 'no NVML: nothing to show');
  assert.equal(nvmlUtilText({}, '60s'), null);
});

test('one line per device, leaving out readings the device does not report', () => {
  assert.deepEqual(gpuDeviceLines(row, '10s'), [
    'GPU 0: 95 % now, 94 % 10 s mean · SM 1410 MHz · 8.0 GiB · 250 W · now',
    'GPU 1: 41 % now, 40 % 10 s mean · SM 1410 MHz · 8.0 GiB · 3 s ago',
  ]);
  assert.equal(gpuDeviceLines(row, '60s')[1], `GPU 1: 41 % now, ${DASH} 60 s mean · SM 1410 MHz · 8.0 GiB · 3 s ago`);
});

test('the tooltip says what NVML utilization measures', () => {
  const tip = nvmlTooltip(row, '10s');
  assert.ok(tip.startsWith('GPU 0: 95 %'));
  assert.ok(tip.endsWith(kNvmlNote));
  assert.match(kNvmlNote, /some kernel ran/);
});

test('bytes in binary units', () => {
  assert.equal(bytes(512), '512 B');
  assert.equal(bytes(1536), '1.5 KiB');
  assert.equal(bytes(8589934592), '8.0 GiB');
  assert.equal(bytes(null), DASH);
});
