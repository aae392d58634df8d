// SPDX-License-Identifier: MIT
// The generated /js/vocabulary.js (the catalog's words; the build writes it
// and ctest names it in STALLWATCH_VOCABULARY_JS): a module the page can
// import, with every word the API uses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const file = process.env.STALLWATCH_VOCABULARY_JS;

test('the vocabulary module has a label, tone and meaning for every API word', { skip: !file && 'STALLWATCH_VOCABULARY_JS not set (run through ctest)' }, async () => {
  const v = await import(pathToFileURL(file).href);
  assert.deepEqual(Object.keys(v.kVerdicts), ['data-starved', 'io-bound', 'waiting-for-peers', 'host-bound', 'well-overlapped', 'idle']);
  assert.deepEqual(Object.keys(v.kRankStates), ['active', 'silent', 'finished']);
  assert.deepEqual(Object.keys(v.kDeviceSources).sort(), ['compute-proxy', 'cuda-events', 'cupti', 'nvml', 'trace']);
  assert.deepEqual(Object.keys(v.kCauses), ['storage', 'preprocessing', 'launch-bound', 'unknown', 'none']);
  for (const table of [v.kVerdicts, v.kRankStates, v.kDeviceSources, v.kCauses]) {
    for (const [name, term] of Object.entries(table)) {
      assert.ok(['ok', 'warn', 'bad', 'dim'].includes(term.tone), name);
      assert.ok(term.label.length > 0 && term.meaning.length > 0, name);
      assert.ok(Object.isFrozen(term), name);
    }
  }
  assert.equal(v.kVerdicts['data-starved'].tone, 'bad');
  assert.equal(v.kVerdicts['io-bound'].label, 'I/O-bound');
  assert.equal(v.kDeviceSources['compute-proxy'].tone, 'warn');
});
