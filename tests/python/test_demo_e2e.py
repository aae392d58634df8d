# SPDX-License-Identifier: MIT
"""End to end: the examples under `python -m stallwatch.run` reach their verdicts in a
real stallwatchd, read back through its HTTP API (docs/api.md).

slow_loader.py must be `data-starved`, fast_loader.py `well-overlapped`. Each
runs for --seconds 20 (the verdict window, 60 s, covers the whole run).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import urllib.error

from conftest import child_env
from daemon_fixture import get_json, requires_daemon

EXAMPLES = os.environ.get("STALLWATCH_TEST_EXAMPLES",
                          os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
SECONDS = "20"

pytestmark = requires_daemon


def run_example(daemon, script: str, job: str):
    """Runs an example to completion; returns (verdict, job detail) from the API."""
    base, ingest = daemon
    data_dir = os.path.join(tempfile.gettempdir(), f"stallwatch-test-data-{os.getuid()}")
    proc = subprocess.run(
        [sys.executable, "-m", "stallwatch.run", os.path.join(EXAMPLES, script),
         "--seconds", SECONDS, "--data-dir", data_dir],
        env=child_env(None, STALLWATCH_COLLECTOR=ingest, STALLWATCH_JOB=job),
        capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    deadline = time.monotonic() + 15
    detail = None
    while time.monotonic() < deadline:
        try:
            detail = get_json(f"{base}/api/v1/jobs/{job}")
        except urllib.error.HTTPError:
            detail = None
        if detail is not None and detail.get("verdict") not in (None, "idle"):
            break
        time.sleep(0.5)
    return (detail or {}).get("verdict"), detail


def summary(detail) -> str:
    if not detail:
        return "job unknown to the collector"
    window = detail.get("verdict_window", "60s")
    metrics = detail["summary"][window]["mean"]
    keys = ("wall_seconds", "compute_seconds", "fetch_seconds", "data_stall_ratio",
            "device_idle_ratio", "overlap_ratio", "steps", "samples_per_second")
    return ", ".join(f"{k}={metrics.get(k)}" for k in keys)


def test_slow_loader_is_data_starved(daemon):
    verdict, detail = run_example(daemon, "slow_loader.py", "e2e-slow")
    assert verdict == "data-starved", summary(detail)


def test_fast_loader_is_well_overlapped(daemon):
    verdict, detail = run_example(daemon, "fast_loader.py", "e2e-fast")
    assert verdict == "well-overlapped", summary(detail)
