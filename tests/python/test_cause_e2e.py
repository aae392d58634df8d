# SPDX-License-Identifier: MIT
"""The cause of a data stall, end to end through a real stallwatchd: a loop whose
items are read from a slow pipe (time inside ``read``) and one whose items are
decoded on the CPU after a page-cached read, both under
``python -m stallwatch.run --posix``. Both are data-starved; the first's cause
is storage, the second's preprocessing; the same loop without ``--posix`` has
no captured I/O and its cause is unknown. No PyTorch needed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error

from conftest import child_env
from daemon_fixture import get_json, requires_daemon
from posix_support import requires_posix

pytestmark = [requires_daemon, requires_posix]

LOOP = os.path.join(os.path.dirname(__file__), "scenarios", "cause_loop.py")


def run_loop(daemon, mode: str, job: str, tmp_path, posix: bool = True):
    """Runs the loop to its end and returns the rank's totals once they settle."""
    base, ingest = daemon
    cmd = [sys.executable, "-m", "stallwatch.run"] + (["--posix"] if posix else [])
    proc = subprocess.run(cmd + [LOOP, mode, str(tmp_path), "--items", "20"],
                          env=child_env(None, STALLWATCH_COLLECTOR=ingest, STALLWATCH_JOB=job),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert f"bytes_read {20 * 64 * 1024}" in proc.stdout, proc.stdout
    deadline = time.monotonic() + 20
    rank = {}
    while time.monotonic() < deadline:
        try:
            rank = get_json(f"{base}/api/v1/jobs/{job}")["ranks"][0]
        except (urllib.error.HTTPError, KeyError, IndexError):
            rank = {}
        if rank.get("state") == "finished":
            break
        time.sleep(0.5)
    assert rank.get("state") == "finished", rank
    return rank, get_json(f"{base}/api/v1/jobs/{job}")


def test_a_loop_blocked_in_read_is_starved_by_storage(daemon, tmp_path):
    rank, job = run_loop(daemon, "storage", "cause-storage", tmp_path)
    m = rank["windows"]["total"]
    assert m["verdict"] == "data-starved", m
    assert m["io_captured"] is True, m
    assert m["loader_io_ratio"] >= 0.8, m
    assert m["cause"] == "storage", m
    assert job["summary"]["total"]["cause"] == "storage", job["summary"]["total"]


def test_a_loop_decoding_on_the_cpu_is_starved_by_preprocessing(daemon, tmp_path):
    rank, job = run_loop(daemon, "preprocessing", "cause-decode", tmp_path)
    m = rank["windows"]["total"]
    assert m["verdict"] == "data-starved", m
    assert m["io_captured"] is True, m
    assert m["loader_io_ratio"] < 0.2, m
    assert m["cause"] == "preprocessing", m


def test_without_posix_capture_the_cause_is_unknown(daemon, tmp_path):
    rank, _ = run_loop(daemon, "preprocessing", "cause-unknown", tmp_path, posix=False)
    m = rank["windows"]["total"]
    assert m["verdict"] == "data-starved", m
    assert m["io_captured"] is False, m
    assert m["cause"] == "unknown", m
