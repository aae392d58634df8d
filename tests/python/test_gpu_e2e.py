# SPDX-License-Identifier: MIT
"""End to end through a real stallwatchd: a rank whose agent runs the fake
CUPTI reports ``device_source: cupti``, and its data stall is measured against
the GPU's busy time (FETCH \\ DEVICE_BUSY), not against compute regions.

scenarios/fake_gpu_stall.py keeps the device busy for half of each fetch wait,
so data_stall_seconds is about half of fetch_seconds; under compute-proxy it
would be all of it. scenarios/long_device_span.py runs one 5 s CUDA-event span
(longer than the 2 s lateness): it must count in full, with no late event.
scenarios/fake_launch_bound.py launches tiny kernels back to back, half of them
through the driver API as Triton does: every launch reaches the collector joined
to its kernel, with HTA's figures, the verdict is host-bound with the cause
launch-bound, and the rank's top kernels by device time are the two kernels.
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

FAKE_CUPTI = os.environ.get("STALLWATCH_TEST_FAKE_CUPTI", "")
SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios")
SCRIPT = os.path.join(SCENARIOS, "fake_gpu_stall.py")

pytestmark = [requires_daemon,
              pytest.mark.skipif(not os.path.isfile(FAKE_CUPTI),
                                 reason="fake libcupti not built (STALLWATCH_TEST_FAKE_CUPTI)")]


def finished_rank(base: str, job: str):
    """The job's rank 0 once the collector saw its process finish."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            detail = get_json(f"{base}/api/v1/jobs/{job}")
            ranks = detail.get("ranks", [])
            if ranks and ranks[0]["state"] == "finished":
                return detail, ranks[0]
        except urllib.error.HTTPError:
            pass
        time.sleep(0.5)
    pytest.fail(f"job {job} never finished in the collector")


def test_data_stall_is_measured_against_cupti_device_busy_time(daemon):
    base, ingest = daemon
    job = "e2e-fake-cupti"
    proc = subprocess.run(
        [sys.executable, SCRIPT, "6"],
        env=child_env(None, STALLWATCH_COLLECTOR=ingest, STALLWATCH_JOB=job,
                      STALLWATCH_CUPTI_PATH=FAKE_CUPTI, FAKE_CUPTI_LIBRARY=FAKE_CUPTI,
                      STALLWATCH_NVML_PATH="/nonexistent/libnvidia-ml.so.1"),
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[0] == "cupti"
    detail, rank = finished_rank(base, job)
    assert rank["device_source"] == "cupti"
    assert rank["processes"][0]["device_source"] == "cupti"
    total = rank["windows"]["total"]
    shown = {k: total.get(k) for k in ("wall_seconds", "fetch_seconds", "compute_seconds",
                                       "device_busy_seconds", "data_stall_seconds",
                                       "device_idle_ratio", "data_stall_ratio")}
    assert total["fetch_seconds"] > 2.0, shown
    stall_share = total["data_stall_seconds"] / total["fetch_seconds"]
    assert 0.3 <= stall_share <= 0.7, f"expected about half of the fetch time: {shown}"
    assert total["device_busy_seconds"] >= 1.25 * total["compute_seconds"], shown
    assert total["device_idle_ratio"] < 0.4, shown
    assert rank["agent_dropped"] == 0
    jobs = {j["job"]: j for j in get_json(f"{base}/api/v1/jobs")["jobs"]}
    assert jobs[job]["device_source"] == "cupti"


def test_a_device_span_longer_than_the_lateness_counts_in_full(daemon):
    base, ingest = daemon
    job = "e2e-long-device-span"
    proc = subprocess.run(
        [sys.executable, os.path.join(SCENARIOS, "long_device_span.py"), "5"],
        env=child_env(None, STALLWATCH_COLLECTOR=ingest, STALLWATCH_JOB=job,
                      STALLWATCH_CUPTI_PATH="/nonexistent/libcupti.so",
                      STALLWATCH_NVML_PATH="/nonexistent/libnvidia-ml.so.1"),
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["cuda-events", "1"]
    _, rank = finished_rank(base, job)
    assert rank["device_source"] == "cuda-events"
    total = rank["windows"]["total"]
    shown = {k: total.get(k) for k in ("wall_seconds", "device_busy_seconds")}
    assert rank["late_events"] == 0, shown
    assert rank["unpaired_events"] == 0, shown
    assert 4.9 <= total["device_busy_seconds"] <= 5.1, shown


def test_a_launch_bound_loop_shows_its_launches_and_the_launch_bound_cause(daemon):
    base, ingest = daemon
    job = "e2e-fake-launch-bound"
    proc = subprocess.run(
        [sys.executable, os.path.join(SCENARIOS, "fake_launch_bound.py"), "3"],
        env=child_env(None, STALLWATCH_COLLECTOR=ingest, STALLWATCH_JOB=job,
                      STALLWATCH_CUPTI_PATH=FAKE_CUPTI, FAKE_CUPTI_LIBRARY=FAKE_CUPTI,
                      STALLWATCH_NVML_PATH="/nonexistent/libnvidia-ml.so.1"),
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    source, launched, driver = proc.stdout.split()
    assert source == "cupti"
    _, rank = finished_rank(base, job)
    total = rank["windows"]["total"]
    shown = {k: total.get(k) for k in (
        "wall_seconds", "device_busy_seconds", "device_idle_ratio", "launches", "launch_seconds",
        "launch_delay_seconds", "short_kernels", "long_launches", "late_launch_starts",
        "launch_idle_ratio", "launches_captured", "verdict", "cause")}
    assert rank["agent_dropped"] == 0, shown
    assert total["launches"] == int(launched) > 50_000, shown
    assert total["short_kernels"] == total["launches"], shown
    assert total["long_launches"] == 0 and total["late_launch_starts"] == 0, shown
    # Each end is mapped from CUPTI's clock onto the agent's: within 1 %.
    assert abs(total["launch_seconds"] / (total["launches"] * 40e-6) - 1) < 0.01, shown
    assert abs(total["launch_delay_seconds"] / (total["launches"] * 5e-6) - 1) < 0.01, shown
    assert total["launches_captured"] is True, shown
    assert total["launch_idle_ratio"] > 0.9, shown
    assert total["verdict"] == "host-bound", shown
    assert total["cause"] == "launch-bound", shown
    assert rank["cause"] == "launch-bound", shown
    assert 0 < int(driver) < int(launched), proc.stdout
    # The whole run is in the 60 s window: each kernel with its launches.
    top = rank["top_kernels"]["60s"]
    assert top["other"] == {"device_seconds": 0.0, "count": 0}, top
    kernels = {k["name"]: k for k in top["kernels"]}
    assert set(kernels) == {"tiny_kernel()", "triton_poi_fused_add_0"}, top
    assert kernels["triton_poi_fused_add_0"]["count"] == int(driver), top
    assert kernels["tiny_kernel()"]["count"] == int(launched) - int(driver), top
    for k in kernels.values():
        assert abs(k["device_seconds"] / (k["count"] * 10e-6) - 1) < 0.01, top
    seconds = [k["device_seconds"] for k in top["kernels"]]
    assert seconds == sorted(seconds, reverse=True), top
