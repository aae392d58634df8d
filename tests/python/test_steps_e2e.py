# SPDX-License-Identifier: MIT
"""Steps counted exactly, end to end through a real stallwatchd.

A rank's ``steps`` over the run must equal the batches it trained: with
the zero-code path (``python -m stallwatch.run`` over scenarios/torch_train.py,
with and without an optimizer, over several epochs) and with the ``ai`` API
(scenarios/ai_loop.py: 3 epochs x 2 steps, epochs as ``epoch.iter`` regions
or as metadata marks; scenarios/ai_fetch_loop.py: no epoch marker at all, only
``ai.dataloader.fetch.iter`` and ``ai.update(step=...)``). The fetch that brings a loop's first
batch comes before its first step mark; it starts that step and must not count
as one more, and the wait that ends each epoch's loop brought no batch: the
timeline marks it ``loop_end`` on both paths.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error

import pytest

from conftest import child_env
from daemon_fixture import get_json, requires_daemon

SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios")

pytestmark = [requires_daemon]


def finished_rank(base: str, job: str):
    """The job's rank 0 once the collector saw its process finish."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            ranks = get_json(f"{base}/api/v1/jobs/{job}").get("ranks", [])
            if ranks and ranks[0]["state"] == "finished":
                return ranks[0]
        except urllib.error.HTTPError:
            pass
        time.sleep(0.5)
    pytest.fail(f"job {job} never finished in the collector")


def run(ingest: str, job: str, args, timeout: int = 120) -> None:
    proc = subprocess.run([sys.executable, *args],
                          env=child_env(None, STALLWATCH_COLLECTOR=ingest, STALLWATCH_JOB=job),
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("epochs,batches,optimizer", [(1, 10, True), (3, 4, True), (2, 5, False)],
                         ids=["1x10", "3x4", "2x5-no-optimizer"])
def test_zero_code_steps_are_the_batches_trained(daemon, epochs, batches, optimizer):
    base, ingest = daemon
    job = f"steps-zero-code-{epochs}x{batches}{'' if optimizer else '-noopt'}"
    args = ["-m", "stallwatch.run", os.path.join(SCENARIOS, "torch_train.py"),
            "--epochs", str(epochs), "--batches", str(batches)]
    if not optimizer:
        args.append("--no-optimizer")
    run(ingest, job, args)
    rank = finished_rank(base, job)
    assert rank["step"] == epochs * batches
    assert rank["epoch"] == epochs - 1
    total = rank["windows"]["total"]
    assert total["steps"] == epochs * batches, total


@pytest.mark.parametrize("metadata", [False, True], ids=["epoch-regions", "epoch-marks"])
def test_ai_api_steps_are_the_batches_trained(daemon, tmp_path, metadata):
    base, ingest = daemon
    job = f"steps-ai-{'marks' if metadata else 'regions'}"
    args = [os.path.join(SCENARIOS, "ai_loop.py"), str(tmp_path)]
    if metadata:
        args.append("--metadata")
    run(ingest, job, args)
    rank = finished_rank(base, job)
    total = rank["windows"]["total"]
    assert total["steps"] == 6, total  # 3 epochs x 2 batches


@pytest.mark.parametrize("loops,batches,generator",
                         [(1, 7, False), (2, 5, False), (1, 6, True), (3, 4, True)],
                         ids=["1x7", "2x5", "1x6-decorated-generator", "3x4-decorated-generator"])
def test_ai_api_steps_without_an_epoch_marker_are_the_batches_trained(daemon, loops, batches,
                                                                      generator):
    base, ingest = daemon
    job = f"steps-ai-no-epoch-{loops}x{batches}{'-generator' if generator else ''}"
    run(ingest, job, [os.path.join(SCENARIOS, "ai_fetch_loop.py"), str(loops), str(batches)] +
        (["--generator"] if generator else []))
    rank = finished_rank(base, job)
    assert rank["step"] == batches - 1  # ai.update(step=...) from enumerate
    total = rank["windows"]["total"]
    assert total["steps"] == loops * batches, total


@pytest.mark.parametrize("generator", [False, True], ids=["iterator", "decorated-generator"])
def test_ai_api_epochs_marked_without_step_marks_count_the_batches_fetched(daemon, generator):
    base, ingest = daemon
    job = f"steps-ai-epochs-only{'-generator' if generator else ''}"
    run(ingest, job, [os.path.join(SCENARIOS, "ai_fetch_loop.py"), "3", "4", "--epochs-only"] +
        (["--generator"] if generator else []))
    rank = finished_rank(base, job)
    assert rank["epoch"] == 2
    total = rank["windows"]["total"]
    assert total["steps"] == 3 * 4, total


def test_the_timeline_marks_the_waits_that_ended_a_loop(daemon, tmp_path):
    base, ingest = daemon
    job = "steps-ai-timeline"
    run(ingest, job, [os.path.join(SCENARIOS, "ai_loop.py"), str(tmp_path)])
    finished_rank(base, job)
    timeline = get_json(f"{base}/api/v1/jobs/{job}/ranks/0/timeline?seconds=60")
    ended = [(r["name"], r["loop_end"]) for r in timeline["regions"]
             if r["name"] in ("fetch.iter", "epoch.iter")]
    # pydftracer counts 6 fetch waits and 3 epoch waits; each loop's last wait is marked.
    assert sorted(ended) == sorted([("fetch.iter", False)] * 6 + [("fetch.iter", True)] * 3 +
                                   [("epoch.iter", False)] * 3 + [("epoch.iter", True)])


def test_the_timeline_marks_the_zero_code_loop_ending_waits(daemon):
    base, ingest = daemon
    job = "steps-zero-code-timeline"
    run(ingest, job, ["-m", "stallwatch.run", os.path.join(SCENARIOS, "torch_train.py"),
                      "--epochs", "2", "--batches", "3"])
    finished_rank(base, job)
    timeline = get_json(f"{base}/api/v1/jobs/{job}/ranks/0/timeline?seconds=60")
    ended = [r["loop_end"] for r in timeline["regions"] if r["name"] == "fetch.iter"]
    # 3 fetches that brought a batch per epoch, then the wait that ended the epoch's loop.
    assert sorted(ended) == [False] * 6 + [True] * 2
