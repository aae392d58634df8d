// SPDX-License-Identifier: MIT
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asSentence, verdictSentence } from '../js/verdict_sentence.js';

const mean = {
  data_stall_ratio: 0.012, device_idle_ratio: 0.034, overlap_ratio: 0.9,
  unoverlapped_app_io_seconds: 0.5, unoverlapped_all_io_seconds: 0.75,
};

test('a vocabulary meaning reads as a sentence', () => {
  assert.equal(asSentence('no training activity in this window'), 'No training activity in this window.');
  assert.equal(asSentence(undefined), '');
});

test('without numbers the sentence is the meaning', () => {
  assert.equal(verdictSentence('idle', null, 'no training activity in this window'), 'No training activity in this window.');
  assert.equal(verdictSentence('idle', mean, 'no training activity in this window'), 'No training activity in this window.');
});

test('well-overlapped with overlap measured says how much', () => {
  assert.equal(verdictSentence('well-overlapped', mean, ''),
    'Data loading overlaps compute (90.0% overlapped); data stall 1.2%.');
});

test('well-overlapped without application I/O does not claim any overlap', () => {
  for (const overlap of [null, undefined, NaN]) {
    const s = verdictSentence('well-overlapped', { ...mean, overlap_ratio: overlap }, '');
    assert.equal(s, 'No application I/O in this window, so none to overlap; data stall 1.2%, device idle 3.4%.');
    assert.doesNotMatch(s, /overlaps compute|overlapped\)/);
  }
});

test('well-overlapped with little overlap does not say loading overlaps compute', () => {
  for (const overlap of [0, 0.1]) {
    const s = verdictSentence('well-overlapped', { ...mean, overlap_ratio: overlap }, '');
    assert.match(s, /^500 ms of application I\/O not overlapped with compute \(overlap (0\.0|10\.0)%\), yet the device waits for data only 1\.2% of the time\.$/);
    assert.doesNotMatch(s, /overlaps compute|Little/);
  }
});

test('io-bound without application I/O names the system I/O it rests on', () => {
  assert.equal(verdictSentence('io-bound', { ...mean, overlap_ratio: null }, ''),
    '750 ms of system I/O not overlapped with compute (no application I/O in this window).');
  assert.equal(verdictSentence('io-bound', mean, ''),
    '500 ms of application I/O not overlapped with compute (overlap 90.0%).');
});

test('host-bound names a launch-bound cause and the share it rests on', () => {
  const host = { ...mean, device_idle_ratio: 0.7, data_stall_ratio: 0, launch_idle_ratio: 0.8 };
  assert.equal(verdictSentence('host-bound', { ...host, cause: 'launch-bound' }, ''),
    'Device idle 70.0%, but only 0.0% waiting for data: the host is the limit. Cause: launch-bound — launching kernels takes 80.0% of the device\'s idle time.');
  assert.equal(verdictSentence('host-bound', { ...host, cause: 'unknown' }, ''),
    'Device idle 70.0%, but only 0.0% waiting for data: the host is the limit.');
});

test('data-starved names its cause and the share it rests on', () => {
  const starved = { ...mean, data_stall_ratio: 0.6, device_idle_ratio: 0.7, loader_io_ratio: 0.9 };
  assert.equal(verdictSentence('data-starved', { ...starved, cause: 'storage' }, ''),
    'The device waits for data 60.0% of the time; device idle 70.0%. Cause: storage — the data loader spends 90.0% of its time inside I/O calls.');
  assert.equal(verdictSentence('data-starved', { ...starved, loader_io_ratio: 0.05, cause: 'preprocessing' }, ''),
    'The device waits for data 60.0% of the time; device idle 70.0%. Cause: preprocessing — the data loader spends only 5.0% of its time inside I/O calls, the rest outside them.');
  assert.match(verdictSentence('data-starved', { ...starved, cause: 'unknown' }, ''), /Cause unknown: no I\/O calls are captured/);
  assert.equal(verdictSentence('data-starved', starved, ''),
    'The device waits for data 60.0% of the time; device idle 70.0%.');
});
