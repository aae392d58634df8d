# SPDX-License-Identifier: MIT
"""Who holds a data-parallel job back, end to end with real processes.

examples/ddp_straggler.py runs 4 ranks of a DDP job over gloo (CPU) under
``python -m stallwatch.run`` against a real stallwatchd: zero-code capture of
the DataLoader, the model and DDP's gradient all-reduce (a comm hook), then
the job detail of the API over its 10 s window, which the ~10 s of training
fill.

- One slow loader (rank 3, ``DELAY`` s more per batch): the job is held back
  by rank 3, data-starved; ranks 0-2 read ``waiting-for-peers`` with
  ``peer_wait_seconds`` close to rank 3's extra fetch time over the window's
  steps. Tolerance: 25 % + one step's delay. Each rank's wait runs from its
  own bucket being ready to rank 3's, so it differs from the extra fetch time
  by the ranks' differences in forward/backward time and by scheduling delays
  of 4 processes on a machine with 2 cores (a few ms per step, up to tens
  under load); a step cut by the window's start counts in part.
- Balanced loaders: nobody is named.
- One rank slow in host-side work outside the model (rank 1): named with its
  own verdict, host-bound.
- The same jobs replayed from the daemon's journal (``stallwatch replay
  DIR/*.swj``) into a fresh daemon give the same job-level answer: who holds
  each job back, every rank's verdict, peer wait and step count. The live
  daemon of this module keeps a journal for it; the replay test runs last and
  stops it first, so that every batch is on disk.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error

import pytest

from conftest import child_env
from daemon_fixture import Daemon, get_json, requires_daemon, start_daemon

EXAMPLE = os.path.join(os.environ.get("STALLWATCH_TEST_EXAMPLES",
                                      os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", "..", "examples")),
                       "ddp_straggler.py")
RANKS = 4
STEPS = 45
DELAY = 0.2
# The API window judged: the daemon's shortest, which the training fills (the
# verdict window, 60 s, would also hold the ranks' start-up: importing torch).
WINDOW = "10s"

CLI = os.environ.get("STALLWATCH_TEST_CLI", "")

pytestmark = [requires_daemon]


@pytest.fixture(scope="module")
def journaled():
    """This module's live daemon, journaling every batch it takes."""
    workdir = tempfile.mkdtemp(prefix="stallwatch-ddp-")
    running = start_daemon(workdir, "--journal", os.path.join(workdir, "journal"))
    yield running
    if running.proc.poll() is None:
        running.stop()
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="module")
def daemon(journaled: Daemon):
    return journaled.base, journaled.ingest


def torch_distributed() -> bool:
    try:
        import torch.distributed as dist
    except Exception:
        return False
    return bool(dist.is_available())


requires_gloo = pytest.mark.skipif(not torch_distributed(),
                                   reason="PyTorch with torch.distributed is not installed")


def run_job(base: str, ingest: str, job: str, *args: str) -> dict:
    """Runs the example as `job` and returns the API's job detail once every rank finished."""
    env = child_env(None, STALLWATCH_COLLECTOR=ingest, GLOO_SOCKET_IFNAME="lo")
    # Its own session, so that a rank left hanging is killed with the launcher.
    proc = subprocess.Popen([sys.executable, EXAMPLE, "--job", job, "--ranks", str(RANKS),
                             "--steps", str(STEPS), *args],
                            env=dict(env, PYTHONFAULTHANDLER="1"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGABRT)  # each rank prints its threads' stacks
        time.sleep(5)
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        pytest.fail(f"job {job} did not end in 240 s:\n{err[-6000:]}")
    assert proc.returncode == 0, err
    return run_job_detail(base, job)


def run_job_detail(base: str, job: str) -> dict:
    """The API's job detail once every rank of `job` has finished."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            detail = get_json(f"{base}/api/v1/jobs/{job}")
            ranks = detail.get("ranks", [])
            if len(ranks) == RANKS and all(r["state"] == "finished" for r in ranks):
                return detail
        except urllib.error.HTTPError:
            pass
        time.sleep(0.5)
    pytest.fail(f"job {job} never finished in the collector")


# Longer than the daemon's lateness (2 s): a finished rank is final by then.
SETTLE_S = 3.0
# The job detail of each job run so far, by job id (the replay test compares them all).
LIVE: dict = {}


def job(daemon, name: str, *args: str) -> dict:
    """The job detail of example job `name` run with `args`, run once per module."""
    if name not in LIVE:
        base, ingest = daemon
        LIVE[name] = run_job(base, ingest, name, *args)
    return LIVE[name]


SLOW_LOADER = ("ddp-slow-loader", "--slow-loader", "3", "--delay", str(DELAY), "--fetch", "0.02")
BALANCED = ("ddp-balanced", "--fetch", "0.1")
SLOW_HOST = ("ddp-slow-host", "--slow-host", "1", "--delay", "0.25", "--fetch", "0.02")


def held_back(detail: dict):
    return detail["summary"][WINDOW]["held_back"]


def rank_window(detail: dict, rank: int) -> dict:
    row = next(r for r in detail["ranks"] if r["rank"] == rank)
    return row["windows"][WINDOW]


@requires_gloo
def test_the_slow_loader_holds_the_job_back(daemon):
    detail = job(daemon, *SLOW_LOADER)
    named = held_back(detail)
    assert named is not None, detail["summary"]
    assert named["ranks"] == [{"rank": 3, "verdict": "data-starved", "cause": "unknown"}], named
    assert named["other_ranks"] == 3
    for rank in (0, 1, 2):
        w = rank_window(detail, rank)
        assert w["verdict"] == "waiting-for-peers", (rank, w)
        expected = DELAY * w["steps"]
        assert abs(w["peer_wait_seconds"] - expected) <= 0.25 * expected + DELAY, (rank, w)
        print(f"rank {rank}: peer_wait_seconds {w['peer_wait_seconds']:.3f} "
              f"(expected {expected:.3f} over {w['steps']} steps)")
    slow = rank_window(detail, 3)
    assert slow["verdict"] == "data-starved", slow
    assert slow["peer_wait_seconds"] < 0.1 * DELAY * slow["steps"], slow
    print("held_back:", named)


@requires_gloo
def test_balanced_loaders_name_nobody(daemon):
    detail = job(daemon, *BALANCED)
    assert held_back(detail) is None, detail["summary"][WINDOW]
    for rank in range(RANKS):
        w = rank_window(detail, rank)
        print(f"rank {rank}: peer_wait_seconds {w['peer_wait_seconds']:.3f} "
              f"wall {w['wall_seconds']:.3f} verdict {w['verdict']}")


@requires_gloo
def test_a_rank_slow_on_the_host_is_named_host_bound(daemon):
    detail = job(daemon, *SLOW_HOST)
    named = held_back(detail)
    assert named is not None, detail["summary"]
    assert named["ranks"] == [{"rank": 1, "verdict": "host-bound", "cause": "unknown"}], named
    for rank in (0, 2, 3):
        assert rank_window(detail, rank)["verdict"] == "waiting-for-peers", rank


def answer(detail: dict) -> dict:
    """What the job view says: who holds the job back (and at what cost), and
    per rank its verdict, cause, peer wait and steps over the judged window."""
    summary = detail["summary"][WINDOW]
    return {
        "held_back": summary["held_back"],
        "ranks": {r["rank"]: {k: r["windows"][WINDOW].get(k)
                              for k in ("verdict", "cause", "peer_wait_seconds", "steps",
                                        "wall_seconds", "fetch_seconds")}
                  for r in detail["ranks"]},
    }


@requires_gloo
@pytest.mark.skipif(not os.path.isfile(CLI), reason="stallwatch not built (STALLWATCH_TEST_CLI)")
def test_the_jobs_replayed_from_the_journal_get_the_same_answer(daemon, journaled: Daemon):
    job(daemon, *SLOW_LOADER)
    job(daemon, *BALANCED)
    # What the live daemon says once the last batches are final everywhere.
    time.sleep(SETTLE_S)
    live_now = {name: run_job_detail(journaled.base, name) for name in LIVE}
    journaled.stop()
    segments = sorted(glob.glob(os.path.join(journaled.workdir, "journal", "*.swj")))
    assert segments, os.listdir(journaled.workdir)
    workdir = tempfile.mkdtemp(prefix="stallwatch-ddp-replay-")
    fresh = start_daemon(workdir)
    try:
        replay = subprocess.run([CLI, "replay", *segments, "--to", fresh.ingest, "--speed", "max",
                                 "--timeout", "30s"], capture_output=True, text=True, timeout=120)
        assert replay.returncode == 0, replay.stdout + replay.stderr
        assert "0 corrupt or truncated journal records skipped" in replay.stdout + replay.stderr
        time.sleep(SETTLE_S)
        for name, live in live_now.items():
            want, got = answer(live), answer(run_job_detail(fresh.base, name))
            print(f"{name}: live {want}\n{name}: replayed {got}")
            assert got == want, name
    finally:
        fresh.stop()
        shutil.rmtree(workdir, ignore_errors=True)
