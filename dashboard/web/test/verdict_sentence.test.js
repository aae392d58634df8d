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
  const s = verdictSentence('well-overlapped', { ...mean, overlap_ratio: 0.1 }, '');
  assert.equal(s, 'Little application I/O: 500 ms not overlapped with compute (overlap 10.0%); data stall 1.2%.');
});

test('io-bound without application I/O names the system I/O it rests on', () => {
  assert.equal(verdictSentence('io-bound', { ...mean, overlap_ratio: null }, ''),
    '750 ms of system I/O not overlapped with compute (no application I/O in this window).');
  assert.equal(verdictSentence('io-bound', mean, ''),
    '500 ms of application I/O not overlapped with compute (overlap 90.0%).');
});
