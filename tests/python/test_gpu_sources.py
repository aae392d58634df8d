# SPDX-License-Identifier: MIT
"""GPU activity sources from Python, without a GPU: the fake libcupti and
libnvidia-ml.so.1 built in tests/unit/gpu/fakes stand in for CUDA's.

``python -m stallwatch.run --gpu MODE`` and ``stallwatch.torch.instrument(gpu=)``
must pick the source, declare it on the wire (Source.device_source), send
CUPTI kernels as ``gpu`` complete events on stream lanes, fall back with
exactly one line on stderr when a source cannot start, and wire the CUDA-event
spans around forward, backward and the optimizer step.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import child_env, run_python

FAKE_CUPTI = os.environ.get("STALLWATCH_TEST_FAKE_CUPTI", "")
FAKE_NVML = os.environ.get("STALLWATCH_TEST_FAKE_NVML", "")
FAKE_CUDA = os.environ.get("STALLWATCH_TEST_FAKE_CUDA", "")
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios",
                      "fake_gpu_train.py")
LANE_0_7 = 0x80000000 | 7

pytestmark = pytest.mark.skipif(not (os.path.isfile(FAKE_CUPTI) and os.path.isfile(FAKE_NVML)),
                                reason="fake CUDA libraries not built (STALLWATCH_TEST_FAKE_*)")


def gpu_env(**extra: str) -> dict:
    env = {"STALLWATCH_CUPTI_PATH": FAKE_CUPTI, "FAKE_CUPTI_LIBRARY": FAKE_CUPTI,
           "STALLWATCH_NVML_PATH": "/nonexistent/libnvidia-ml.so.1",
           "STALLWATCH_LOG": "1"}
    env.update(extra)
    return env


def run_script(capture, mode: str, steps: int = 5, **env: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "stallwatch.run", "--gpu", mode, SCRIPT,
                           str(steps)],
                          env=child_env(capture, **gpu_env(**env)), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    capture.wait_until(lambda: len(capture.finished_pids()) >= 1, 15)
    return proc


def agent_lines(stderr: str) -> list:
    return [line for line in stderr.splitlines() if line.startswith("stallwatch:")]


def test_cupti_kernels_arrive_on_their_stream_lane(capture):
    proc = run_script(capture, "cupti", steps=5)
    assert proc.stdout.split() == ["cupti", "5"]
    assert agent_lines(proc.stderr) == []
    kernels = [e for e in capture.events() if e.cat == "gpu"]
    assert [(e.kind, e.name, e.tid) for e in kernels] == [("complete", "fake_forward()",
                                                           LANE_0_7)] * 5
    assert all(e.dur_ns > 0 for e in kernels)
    batches = sorted(capture.batches, key=lambda b: b.seq)
    assert batches[-1].device_source == "cupti"
    names = [(e.cat, e.name) for e in capture.events() if e.kind == "begin"]
    assert names.count(("compute", "forward")) == 5, "host regions are recorded as before"


def test_cupti_taken_by_another_client_falls_back_with_one_line(capture):
    proc = run_script(capture, "auto", FAKE_CUPTI_SUBSCRIBE_RESULT="39")
    assert proc.stdout.split()[0] == "none"
    lines = agent_lines(proc.stderr)
    assert len(lines) == 1, proc.stderr
    assert "compute-proxy" in lines[0] and "taken by another CUPTI client" in lines[0]
    assert not [e for e in capture.events() if e.cat == "gpu"]
    assert {b.device_source for b in capture.batches} == {"none"}


def test_a_missing_cupti_falls_back_with_one_line(capture):
    proc = run_script(capture, "auto", STALLWATCH_CUPTI_PATH="/nonexistent/libcupti.so")
    lines = agent_lines(proc.stderr)
    assert len(lines) == 1, proc.stderr
    assert "cannot load STALLWATCH_CUPTI_PATH" in lines[0]


def test_cuda_events_without_a_cuda_device_say_so_once(capture):
    proc = subprocess.run(
        [sys.executable, "-c",
         "import stallwatch.torch as t; t.instrument(gpu='cuda-events'); print(t.device_source())"],
        env=child_env(capture, **gpu_env()), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "none"
    lines = agent_lines(proc.stderr)
    assert lines == ["stallwatch: GPU activity from compute-proxy "
                     "(cuda-events: PyTorch has no CUDA device)"]


def test_cuda_events_unavailable_before_a_working_source_is_one_line(capture):
    proc = subprocess.run(
        [sys.executable, "-c",
         "import stallwatch.torch as t; t.instrument(gpu='cuda-events,cupti');"
         "print(t.device_source())"],
        env=child_env(capture, **gpu_env()), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "cupti"
    assert agent_lines(proc.stderr) == ["stallwatch: GPU activity from cupti "
                                        "(cuda-events: PyTorch has no CUDA device)"]


def test_nvml_counters_are_declared_and_sent(capture):
    run = run_python("""
        import ctypes, os, time
        import stallwatch, stallwatch.torch
        ctypes.CDLL(os.environ["FAKE_CUDA_LIBRARY"]).cuInit(0)  # NVML maps CUDA's devices by UUID
        stallwatch.torch.instrument(gpu="nvml")
        stats = stallwatch.gpu_stats()
        print(stats["source"], stats["nvml_devices"])
        deadline = time.monotonic() + 30
        while stallwatch.gpu_stats()["nvml_samples"] < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
    """, capture, env=gpu_env(STALLWATCH_NVML_PATH=FAKE_NVML, FAKE_NVML_DEVICES="1",
                              FAKE_CUDA_LIBRARY=FAKE_CUDA))
    assert run.stdout.split() == ["nvml", "1"]
    counters = {e.name: e for e in run.events() if e.cat == "gpu_counters"}
    assert set(counters) == {"nvml.gpu_utilization_percent", "nvml.sm_clock_mhz",
                             "nvml.memory_used_bytes", "nvml.power_watts"}
    assert {e.kind for e in counters.values()} == {"counter"}
    assert {e.tid for e in counters.values()} == {0x80000000 | 0xFFFFFF}
    assert sorted(capture.batches, key=lambda b: b.seq)[-1].device_source == "nvml"


def test_cuda_event_spans_wrap_forward_backward_and_step(capture):
    run = run_python("""
        import torch
        import stallwatch.torch
        from stallwatch.torch._state import STATE

        class Spans:
            def __init__(self):
                self.calls = []
            def enter(self, device=None):
                self.calls.append(f"enter:{device}")
                return len(self.calls)
            def exit(self, token, name):
                self.calls.append(f"{name}:{token}")

        stallwatch.torch.instrument(gpu="none")
        STATE.gpu_spans = spans = Spans()
        model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        model(torch.randn(2, 4)).sum().backward()
        optimizer.step()
        STATE.gpu_spans = None
        print(" ".join(spans.calls))
    """, capture)
    assert run.stdout.split() == ["enter:cpu", "forward:1", "enter:cpu", "backward:3", "enter:cpu",
                                  "step:5"], "each phase names the device its work runs on"
