"""End to end: the examples under `python -m stallwatch.run` reach their verdicts in a
real stallwatchd, read back through its HTTP API (docs/api.md).

slow_loader.py must be `data-starved`, fast_loader.py `well-overlapped`. Each
runs for --seconds 20 (the verdict window, 60 s, covers the whole run).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from conftest import child_env

DAEMON = os.environ.get("STALLWATCH_TEST_STALLWATCHD", "")
EXAMPLES = os.environ.get("STALLWATCH_TEST_EXAMPLES",
                          os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
SECONDS = "20"

pytestmark = pytest.mark.skipif(not os.path.isfile(DAEMON),
                                reason="stallwatchd not built (STALLWATCH_TEST_STALLWATCHD)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def daemon():
    workdir = tempfile.mkdtemp(prefix="stallwatch-e2e-")
    http = f"127.0.0.1:{free_port()}"
    ingest = f"tcp://127.0.0.1:{free_port()}"
    env = dict(os.environ, XDG_RUNTIME_DIR=workdir)
    log = open(os.path.join(workdir, "stallwatchd.log"), "w")
    proc = subprocess.Popen([DAEMON, "--ingest", ingest, "--http", http], env=env, stdout=log,
                            stderr=subprocess.STDOUT)
    base = f"http://{http}"
    deadline = time.monotonic() + 20
    while True:
        try:
            get_json(base + "/healthz")
            break
        except (urllib.error.URLError, ConnectionError, OSError):
            if proc.poll() is not None or time.monotonic() > deadline:
                log.close()
                pytest.fail("stallwatchd did not start:\n" +
                            open(os.path.join(workdir, "stallwatchd.log")).read())
            time.sleep(0.2)
    yield base, ingest
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()
    shutil.rmtree(workdir, ignore_errors=True)


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
