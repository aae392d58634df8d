# SPDX-License-Identifier: MIT
"""Data-loader workers under fork, spawn and forkserver report their own regions.

Workers must arrive as role `worker` of the same (job, rank), with the main
process as ppid, carry the dataset's `data/item` regions (and no compute),
and flush before they exit (their final batch arrives).
"""

from __future__ import annotations

import collections
import os
import subprocess
import sys

import pytest

from conftest import child_env

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios", "torch_train.py")
WORKERS = 2
BATCHES = 4
BATCH_SIZE = 4
# Spawned workers import torch afresh (seconds each on a busy 2-core machine):
# one epoch there, two under fork to also cover workers restarting per epoch.
EPOCHS = {"fork": 2, "spawn": 1, "forkserver": 1}


def run_workers(capture, method, *extra, env=None, expect_finals=True):
    epochs = EPOCHS[method]
    args = ["--workers", str(WORKERS), "--start-method", method, "--epochs", str(epochs),
            "--batches", str(BATCHES), "--batch-size", str(BATCH_SIZE), *extra]
    proc = subprocess.run([sys.executable, "-m", "stallwatch.run", SCRIPT, *args],
                          env=child_env(capture, **(env or {})), capture_output=True, text=True,
                          timeout=180)
    assert proc.returncode == 0, proc.stderr
    if expect_finals:
        expected = 1 + WORKERS * epochs
        capture.wait_until(lambda: len(capture.finished_pids()) >= expected, 20)
    return proc


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_workers_report_items_as_workers_of_the_rank(capture, method):
    run_workers(capture, method, "--user-worker-init")
    epochs = EPOCHS[method]
    mains = {b.pid for b in capture.batches if b.role == "main"}
    assert len(mains) == 1
    main_pid = mains.pop()
    workers = {b.pid for b in capture.batches if b.role == "worker"}
    assert len(workers) == WORKERS * epochs
    assert capture.finished_pids() >= workers | {main_pid}
    assert {(b.job, b.rank) for b in capture.batches} == {(capture.batches[0].job, 0)}
    if method != "forkserver":
        assert {b.ppid for b in capture.batches if b.role == "worker"} == {main_pid}

    worker_regions = collections.Counter(
        (e.cat, e.name) for e in capture.events(role="worker") if e.kind == "begin")
    assert worker_regions == {("data", "item"): epochs * BATCHES * BATCH_SIZE}
    main_regions = collections.Counter(
        (e.cat, e.name) for e in capture.events(role="main") if e.kind == "begin")
    assert main_regions[("data", "item")] == 0
    assert main_regions[("compute", "forward")] == epochs * BATCHES
    assert main_regions[("dataloader", "fetch.iter")] == epochs * (BATCHES + 1)
    steps = [e.value for e in capture.events(role="main") if e.kind == "mark" and e.name == "step"]
    assert steps == list(range(1, epochs * BATCHES + 1))


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_agent_failure_in_workers_does_not_affect_training(capture, method):
    run_workers(capture, method, env={"STALLWATCH_COLLECTOR": "bogus://nowhere"},
                expect_finals=False)
    capture.drain(0.2)
    assert capture.batches == []
