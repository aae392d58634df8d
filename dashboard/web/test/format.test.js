// SPDX-License-Identifier: MIT
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ago, bytesRate, count, DASH, epochStep, pct, rate, seconds, windowLabel } from '../js/format.js';

test('ratios read as percentages and missing values as a dash', () => {
  assert.equal(pct(0.6134), '61.3%');
  assert.equal(pct(1), '100.0%');
  assert.equal(pct(0), '0.0%');
  assert.equal(pct(null), DASH);
  assert.equal(pct(undefined), DASH);
  assert.equal(pct(NaN), DASH);
});

test('seconds pick the unit a person reads fastest', () => {
  assert.equal(seconds(0), '0 s');
  assert.equal(seconds(0.00042), '420 µs');
  assert.equal(seconds(0.0125), '12.5 ms');
  assert.equal(seconds(0.2), '200 ms');
  assert.equal(seconds(4.214), '4.21 s');
  assert.equal(seconds(41.3), '41.3 s');
  assert.equal(seconds(185), '3m 05s');
  assert.equal(seconds(3720), '1h 02m');
  assert.equal(seconds(null), DASH);
});

test('byte rates pick a binary unit and missing ones read as a dash', () => {
  assert.equal(bytesRate(0), '0 B/s');
  assert.equal(bytesRate(512), '512 B/s');
  assert.equal(bytesRate(1536), '1.5 KiB/s');
  assert.equal(bytesRate(256 * 1024 * 1024), '256.0 MiB/s');
  assert.equal(bytesRate(1.5 * 1024 ** 3), '1.5 GiB/s');
  assert.equal(bytesRate(null), DASH);
  assert.equal(bytesRate(NaN), DASH);
});

test('rates and counts are compact', () => {
  assert.equal(rate(0.85), '0.85/s');
  assert.equal(rate(12.44), '12.4/s');
  assert.equal(rate(1234), '1.2k/s');
  assert.equal(rate(45678), '46k/s');
  assert.equal(rate(3.4e6), '3.4M/s');
  assert.equal(count(1234567), '1,234,567');
  assert.equal(count(undefined), DASH);
});

test('ago is relative to the daemon clock, not the browser', () => {
  const now = 1_700_000_000_000_000_000;
  assert.equal(ago(now - 500e6, now), 'now');
  assert.equal(ago(now - 12e9, now), '12 s ago');
  assert.equal(ago(now - 300e9, now), '5 min ago');
  assert.equal(ago(0, now), DASH);
});

test('window names become labels', () => {
  assert.equal(windowLabel('10s'), '10 s');
  assert.equal(windowLabel('total'), 'total');
});

test('epoch and step: -1 (not seen yet) and missing values read as a dash', () => {
  assert.equal(epochStep(3, 1200), '3 · 1,200');
  assert.equal(epochStep(-1, 51), `${DASH} · 51`);
  assert.equal(epochStep(null, -1), `${DASH} · ${DASH}`);
  assert.equal(epochStep(0, 0), '0 · 0');
});
