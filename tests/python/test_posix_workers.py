# SPDX-License-Identifier: MIT
"""DataLoader workers under fork, spawn and forkserver report their POSIX I/O when the
loop runs under ``python -m stallwatch.run --posix``: examples/storage_loader.py reads
every sample from its own throttled pipe, and each pipe's captured read bytes are exactly
the bytes the worker read, from a worker process, never from the training process."""

from __future__ import annotations

import collections
import os
import subprocess
import sys

import pytest

from conftest import child_env
from posix_support import regions, requires_posix
from wire_capture import Capture

EXAMPLES = os.environ.get("STALLWATCH_TEST_EXAMPLES",
                          os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
SAMPLES = 24
ITEM_BYTES = 3 * 64 * 64

pytestmark = [requires_posix,
              pytest.mark.skipif(subprocess.run([sys.executable, "-c", "import torch"],
                                                capture_output=True).returncode != 0,
                                 reason="PyTorch is not installed")]


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_workers_report_their_reads(method: str, tmp_path):
    capture = Capture()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "stallwatch.run", "--posix",
             os.path.join(EXAMPLES, "storage_loader.py"), "--epochs", "1", "--seconds", "0",
             "--samples", str(SAMPLES), "--batch-size", "8", "--item-ms", "10",
             "--workers", "2", "--mp-context", method, "--data-dir", str(tmp_path)],
            env=child_env(capture), capture_output=True, text=True, timeout=240)
        assert proc.returncode == 0, proc.stderr
        capture.wait_until(lambda: len(capture.finished_pids()) >= 1, 15.0)
        capture.drain(1.0)
        got = regions(capture)
    finally:
        capture.close()
    main_pids = {b.pid for b in capture.batches if b.role == "main"}
    per_pipe = collections.Counter()
    readers = set()
    for r in got:
        if r.name == "read" and r.path.endswith(".fifo"):
            per_pipe[r.path] += r.value
            readers.add(r.pid)
    assert len(per_pipe) == SAMPLES, sorted(per_pipe)
    assert set(per_pipe.values()) == {ITEM_BYTES}
    assert readers and not readers & main_pids
