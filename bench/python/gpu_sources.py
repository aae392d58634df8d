# SPDX-License-Identifier: MIT
"""The GPU device sources on a machine with an NVIDIA GPU: agreement with a
torch.profiler ground truth, and overhead on step time. Prints its figures and
ends with one JSON line. Without a CUDA device it says so in that line and
exits 0 (nothing is measured; no figure is made up).

1. Agreement. For examples/slow_loader.py and examples/fast_loader.py
   (--device cuda) and each source, one run under ``python -m stallwatch.run
   --gpu SOURCE`` against a fresh stallwatchd; the rank's totals are read
   from its HTTP API and compared with ``stallwatch analyze`` of a
   torch.profiler trace (profiled_run.py): of the same run for cuda-events and
   nvml, of a twin run (same script, seed and length, --gpu none) for cupti,
   because torch.profiler is itself a CUPTI client and two cannot share a
   process. The live rank spans the whole process, the trace only what was
   profiled, so seconds are compared, not ratios: data-stall seconds and
   device-busy seconds. Goals: |live - truth| <= 0.02 of the trace's wall time
   for CUPTI, <= 0.05 for CUDA events.
2. Overhead. gpu_train_loop.py (GPU-bound, no data loading), interleaved over
   --rounds rounds: plain (no stallwatch), ``--gpu none`` (host regions only),
   and each source (and each --variants entry: ``cupti-no-launches`` is the
   CUPTI source without its launch records, ``cupti-unfiltered`` with every
   runtime and driver call recorded); the median step time of each,
   and each one's cost relative to ``none`` (the rule: a source whose cost
   exceeds 2 % is opt-in).

    PYTHONPATH=build/gpu-rel/python /usr/bin/python3 bench/python/gpu_sources.py \\
        --build build/gpu-rel [--seconds 30] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SOURCES = ("cupti", "cuda-events", "nvml")
# Overhead variants beyond the sources: the CUPTI source without its launch
# records (RUNTIME and DRIVER kinds), to measure what they cost.
VARIANTS = {"cupti-no-launches": ("cupti", {"STALLWATCH_CUPTI_LAUNCHES": "0"}),
            "cupti-unfiltered": ("cupti", {"STALLWATCH_CUPTI_API_FILTER": "0"})}
GOALS = {"cupti": 0.02, "cuda-events": 0.05}
SECONDS = ("wall_seconds", "fetch_seconds", "data_stall_seconds", "device_busy_seconds")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


class Daemon:
    """A stallwatchd on free loopback ports, for one run."""

    def __init__(self, binary: str) -> None:
        self.workdir = tempfile.mkdtemp(prefix="stallwatch-gpu-bench-")
        self.http = f"http://127.0.0.1:{free_port()}"
        self.ingest = f"tcp://127.0.0.1:{free_port()}"
        self.log = open(os.path.join(self.workdir, "stallwatchd.log"), "w")
        self.proc = subprocess.Popen(
            [binary, "--ingest", self.ingest, "--http", self.http[len("http://"):]],
            env=dict(os.environ, XDG_RUNTIME_DIR=self.workdir), stdout=self.log,
            stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while True:
            try:
                get_json(self.http + "/healthz")
                return
            except (urllib.error.URLError, OSError):
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("stallwatchd did not start")
                time.sleep(0.2)

    def rank_totals(self, job: str) -> Dict:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                rank = get_json(f"{self.http}/api/v1/jobs/{job}")["ranks"][0]
                if rank["state"] == "finished":
                    totals = dict(rank["windows"]["total"])
                    totals["device_source"] = rank["device_source"]
                    return totals
            except (urllib.error.HTTPError, KeyError, IndexError):
                pass
            time.sleep(0.5)
        raise RuntimeError(f"job {job} did not finish in the collector")

    def close(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


def python_env(build: str, **extra: str) -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(build, "python")
    env.update(extra)
    return env


def analyze(cli: str, trace: str) -> Dict:
    out = subprocess.run([cli, "analyze", trace, "--json"], capture_output=True, text=True,
                         check=True, timeout=600).stdout
    rank = json.loads(out)["stallwatch"]["jobs"][0]["ranks"][0]
    windows = rank["windows"]
    total = next((w for w in windows if w["window_seconds"] == 0), windows[-1])
    return total


def live_run(options, daemon: Daemon, loader: str, gpu: str, job: str,
             trace: Optional[str]) -> Tuple[Dict, str]:
    script = os.path.join(options.examples, f"{loader}.py")
    command = [sys.executable, "-m", "stallwatch.run", "--gpu", gpu,
               os.path.join(HERE, "profiled_run.py"), "--trace", trace or os.devnull]
    if trace is None:
        command.append("--no-profile")
    command += [script, "--device", "cuda", "--seconds", str(options.seconds),
                "--data-dir", options.data_dir]
    proc = subprocess.run(command, env=python_env(options.build, STALLWATCH_COLLECTOR=daemon.ingest,
                                                  STALLWATCH_JOB=job),
                          capture_output=True, text=True, timeout=options.seconds * 10 + 300)
    if proc.returncode != 0:
        raise RuntimeError(f"{job} failed:\n{proc.stderr}")
    return daemon.rank_totals(job), proc.stderr


def agreement(options) -> Dict[str, Dict[str, float]]:
    cli = os.path.join(options.build, "bin", "stallwatch")
    daemon_bin = os.path.join(options.build, "bin", "stallwatchd")
    workdir = tempfile.mkdtemp(prefix="stallwatch-gpu-traces-")
    diffs: Dict[str, Dict[str, float]] = {}
    print(f"{'loader':<12} {'source':<12} {'live stall':>10} {'truth stall':>11} "
          f"{'live idle':>9} {'truth idle':>10}  source seen")
    for loader in ("slow_loader", "fast_loader"):
        twin_truth = None
        for gpu in options.sources:
            daemon = Daemon(daemon_bin)
            try:
                job = f"{loader}-{gpu}"
                if gpu == "cupti":
                    if twin_truth is None:
                        trace = os.path.join(workdir, f"{loader}-twin.json")
                        live_run(options, daemon, loader, "none", f"{job}-twin", trace)
                        twin_truth = analyze(cli, trace)
                    live, stderr = live_run(options, daemon, loader, gpu, job, None)
                    truth = twin_truth
                else:
                    trace = os.path.join(workdir, f"{job}.json")
                    live, stderr = live_run(options, daemon, loader, gpu, job, trace)
                    truth = analyze(cli, trace)
            finally:
                daemon.close()
            # The live rank spans the whole process (interpreter start to exit), the
            # trace only the profiled part, so their ratios have different
            # denominators. Compared are the seconds, as a fraction of the trace's
            # wall time: data stall, and device busy (idle = wall - busy).
            wall = truth["wall_seconds"] or 1.0
            stall = abs(live["data_stall_seconds"] - truth["data_stall_seconds"]) / wall
            busy = abs(live["device_busy_seconds"] - truth["device_busy_seconds"]) / wall
            entry = diffs.setdefault(gpu, {"data_stall": 0.0, "device_busy": 0.0})
            entry["data_stall"] = max(entry["data_stall"], stall)
            entry["device_busy"] = max(entry["device_busy"], busy)
            print(f"{loader:<12} {gpu:<12} {live['data_stall_ratio']:>10.4f} "
                  f"{truth['data_stall_ratio']:>11.4f} {live['device_idle_ratio']:>9.4f} "
                  f"{truth['device_idle_ratio']:>10.4f}  {live['device_source']}")
            print("    seconds live/truth: " + "  ".join(
                f"{key[:-8]} {live[key]:.3f}/{truth[key]:.3f}" for key in SECONDS)
                  + f"  diff/wall: stall {stall:.4f} busy {busy:.4f}")
            if stderr.strip():
                print(f"    ({stderr.strip()[-300:]})")
    shutil.rmtree(workdir, ignore_errors=True)
    return diffs


def step_ms(options, gpu: Optional[str]) -> float:
    loop = os.path.join(HERE, "gpu_train_loop.py")
    command = [sys.executable, loop, "--steps", str(options.steps), "--batch-size",
               str(options.batch_size)]
    env = python_env(options.build)
    if gpu is not None:
        mode, extra = VARIANTS.get(gpu, (gpu, {}))
        env.update(extra)
        command = [sys.executable, "-m", "stallwatch.run", "--gpu", mode] + command[1:]
    # A real stallwatchd takes the events (as in production; the GPU machine's
    # Python has no pyzmq for a bare sink).
    sink = Daemon(os.path.join(options.build, "bin", "stallwatchd")) if gpu is not None else None
    if sink is not None:
        env["STALLWATCH_COLLECTOR"] = sink.ingest
    try:
        proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    finally:
        if sink is not None:
            sink.close()
    out, err = proc.stdout, proc.stderr
    if proc.returncode != 0:
        raise RuntimeError(f"gpu_train_loop ({gpu}) failed:\n{err}")
    return float(json.loads(out.strip().splitlines()[-1])["median_step_ms"])


def overhead(options) -> Tuple[Dict[str, float], Dict[str, float]]:
    variants: List[Optional[str]] = [None, "none"] + list(options.sources) + list(options.variants)
    samples: Dict[str, List[float]] = {str(v): [] for v in variants}
    for round_ in range(options.rounds):
        for variant in variants:
            samples[str(variant)].append(step_ms(options, variant))
            print(f"round {round_ + 1} {'plain' if variant is None else variant}: "
                  f"{samples[str(variant)][-1]:.3f} ms", flush=True)
    median = {k: statistics.median(v) for k, v in samples.items()}
    print(f"\n{'variant':<14} {'median step ms':>14} {'vs none %':>10}")
    cost = {}
    for variant in variants:
        key = str(variant)
        name = "plain" if variant is None else variant
        vs_none = (median[key] / median["none"] - 1) * 100
        if variant not in (None, "none"):
            cost[variant] = round(vs_none, 2)
        print(f"{name:<14} {median[key]:>14.3f} {vs_none:>10.2f}")
    return {("plain" if k == "None" else k): round(v, 4) for k, v in median.items()}, cost


def device_name() -> Optional[str]:
    try:
        import torch

        return torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    except Exception:
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "gpu-rel"))
    parser.add_argument("--examples", default=os.path.join(ROOT, "examples"))
    parser.add_argument("--data-dir", default=os.path.join(tempfile.gettempdir(),
                                                          f"stallwatch-demo-{os.getuid()}"))
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--batch-size", type=int, default=64,
                        help="gpu_train_loop.py's batch (its step time) for the overhead runs")
    parser.add_argument("--skip-agreement", action="store_true")
    parser.add_argument("--sources", default=",".join(SOURCES))
    parser.add_argument("--variants", default="",
                        help="extra overhead variants: " + ", ".join(VARIANTS))
    options = parser.parse_args()
    options.sources = [s for s in options.sources.split(",") if s]
    options.variants = [v for v in options.variants.split(",") if v]
    unknown = [v for v in options.variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant(s): {', '.join(unknown)}")
    device = device_name()
    if device is None:
        print(json.dumps({"bench": "gpu_sources", "skipped": "no CUDA device"}))
        return 0
    print(f"device: {device}")
    diffs = {} if options.skip_agreement else agreement(options)
    step, cost = overhead(options)
    headline = {
        "bench": "gpu_sources", "device": device, "seconds": options.seconds,
        "batch_size": options.batch_size,
        "data_stall_abs_diff_max": {k: round(v["data_stall"], 4) for k, v in diffs.items()},
        "device_busy_abs_diff_max": {k: round(v["device_busy"], 4) for k, v in diffs.items()},
        "meets_agreement_goal": {k: diffs[k]["data_stall"] <= g and diffs[k]["device_busy"] <= g
                                 for k, g in GOALS.items() if k in diffs},
        "median_step_ms": step, "overhead_percent_vs_none": cost,
    }
    print(json.dumps(headline))
    return 0


if __name__ == "__main__":
    sys.exit(main())
