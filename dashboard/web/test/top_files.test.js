// SPDX-License-Identifier: MIT
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasTopFiles, topFilesCaption, topFilesRows } from '../js/top_files.js';

const file = (path, io_seconds, read_bytes, write_bytes, ops) => ({ path, io_seconds, read_bytes, write_bytes, ops });
const row = {
  top_files: {
    '10s': {
      files: [file('/data/shard-0.bin', 3.25, 268435456, 0, 4097), file('/ckpt/model.pt', 0.5, 0, 1048576, 12)],
      other: { io_seconds: 0.002, read_bytes: 4096, write_bytes: 0, ops: 2 },
    },
    '60s': { files: [], other: { io_seconds: 0, read_bytes: 0, write_bytes: 0, ops: 0 } },
    total: {
      files: [file('/data/shard-0.bin', 30.5, 2147483648, 0, 40000)],
      other: { io_seconds: 1.5, read_bytes: 1024, write_bytes: 0, ops: 7 },
    },
  },
};

test('one row per file, most time first as the API lists them, then the other files', () => {
  assert.deepEqual(topFilesRows(row, '10s'), [
    { path: '/data/shard-0.bin', other: false, cells: ['3.25 s', '256.0 MiB', '0 B', '4,097'] },
    { path: '/ckpt/model.pt', other: false, cells: ['500 ms', '0 B', '1.0 MiB', '12'] },
    { path: 'other files', other: true, cells: ['2.00 ms', '4.0 KiB', '0 B', '2'] },
  ]);
});

test('no "other files" row without calls, and no rows for a window without files', () => {
  assert.deepEqual(topFilesRows(row, '60s'), []);
  assert.deepEqual(topFilesRows(row, '300s'), []);
  assert.deepEqual(topFilesRows({}, '10s'), []);
});

test('the section shows only for a rank with files, and says which window', () => {
  assert.equal(hasTopFiles(row), true);
  assert.equal(hasTopFiles({ top_files: { '10s': row.top_files['60s'] } }), false);
  assert.equal(hasTopFiles({}), false);
  assert.equal(topFilesCaption(row, '10s'), 'Top files by I/O time (10 s)');
  assert.equal(topFilesCaption(row, 'total'), 'Top files by I/O time (since start)');
  assert.equal(topFilesCaption(row, '300s'), 'Top files by I/O time: kept per window, not for 300 s');
});

test('the total since the start is one more window', () => {
  assert.deepEqual(topFilesRows(row, 'total'), [
    { path: '/data/shard-0.bin', other: false, cells: ['30.5 s', '2.0 GiB', '0 B', '40,000'] },
    { path: 'other files', other: true, cells: ['1.50 s', '1.0 KiB', '0 B', '7'] },
  ]);
});
