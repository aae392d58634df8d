# SPDX-License-Identifier: MIT
"""Training-step overhead of zero-code instrumentation on a real PyTorch CPU loop.

1. Runs train_step_loop.py alternately plain and under `python -m
   stallwatch.run` (interleaved, so machine noise hits both alike), each run
   reporting its median step time; the figure is the median over runs of each
   variant and their ratio.
2. Runs it once with --toggle: instrumentation switched on and off every few
   steps in one process, the median step time of each half compared. On a
   shared, noisy machine this is the steadier of the two figures.

The agent sends to a ZeroMQ PULL socket drained by this process, so batches
really leave the training process.

    PYTHONPATH=build/python-rel/python /usr/bin/python3 bench/python/overhead.py
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading

import zmq

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOAD = os.path.join(HERE, "train_step_loop.py")


class Sink:
    """Receives and counts the agent's frames on a background thread."""

    def __init__(self) -> None:
        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.PULL)
        port = self.socket.bind_to_random_port("tcp://127.0.0.1")
        self.endpoint = f"tcp://127.0.0.1:{port}"
        self.frames = 0
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while self.running:
            if self.socket.poll(100):
                self.socket.recv()
                self.frames += 1

    def close(self) -> None:
        self.running = False
        self.thread.join()
        self.socket.close(0)
        self.context.term()


def run_workload(prefix: list, endpoint: str, workload_args: list) -> dict:
    env = dict(os.environ, STALLWATCH_COLLECTOR=endpoint, STALLWATCH_JOB="bench-overhead",
               OMP_NUM_THREADS="1")
    out = subprocess.run(prefix + [WORKLOAD] + workload_args, env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_once(instrumented: bool, endpoint: str, workload_args: list) -> float:
    prefix = [sys.executable, "-m", "stallwatch.run"] if instrumented else [sys.executable]
    return run_workload(prefix, endpoint, workload_args)["median_step_ns"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7, help="runs of each variant")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--toggle-steps", type=int, default=2000,
                        help="steps of the in-process on/off run")
    args = parser.parse_args()
    workload_args = ["--steps", str(args.steps), "--width", str(args.width)]
    sink = Sink()
    plain, instrumented = [], []
    try:
        for i in range(args.runs):
            order = (False, True) if i % 2 == 0 else (True, False)
            for variant in order:
                value = run_once(variant, sink.endpoint, workload_args)
                (instrumented if variant else plain).append(value)
                print(f"run {i} {'stallwatch.run' if variant else 'plain':14s} "
                      f"median step {value / 1e6:.3f} ms", flush=True)
        toggled = run_workload([sys.executable], sink.endpoint,
                               ["--steps", str(args.toggle_steps), "--width", str(args.width),
                                "--toggle", "20"])
    finally:
        sink.close()
    plain_ms = statistics.median(plain) / 1e6
    inst_ms = statistics.median(instrumented) / 1e6
    overhead = inst_ms / plain_ms - 1
    toggle_plain_ms = toggled["median_step_ns"] / 1e6
    toggle_inst_ms = toggled["instrumented_median_step_ns"] / 1e6
    toggle_overhead = toggle_inst_ms / toggle_plain_ms - 1
    cpu_plain_ms = toggled["median_cpu_step_ns"] / 1e6
    cpu_inst_ms = toggled["instrumented_median_cpu_step_ns"] / 1e6
    cpu_overhead = cpu_inst_ms / cpu_plain_ms - 1
    print(f"plain:          median step {plain_ms:.3f} ms over {args.runs} runs")
    print(f"stallwatch.run: median step {inst_ms:.3f} ms over {args.runs} runs")
    print(f"overhead (separate runs): {overhead * 100:+.2f} %")
    print(f"in one process, on/off every 20 steps: off {toggle_plain_ms:.3f} ms, "
          f"on {toggle_inst_ms:.3f} ms, overhead {toggle_overhead * 100:+.2f} % "
          f"({toggled['steps']} + {toggled['instrumented_steps']} steps)")
    print(f"  CPU time per step (all threads): off {cpu_plain_ms:.3f} ms, on {cpu_inst_ms:.3f} ms, "
          f"overhead {cpu_overhead * 100:+.2f} % ({(cpu_inst_ms - cpu_plain_ms) * 1e3:.1f} us)")
    print(f"frames received: {sink.frames}")
    print(json.dumps({"bench": "python_train_overhead", "plain_step_ms": round(plain_ms, 4),
                      "instrumented_step_ms": round(inst_ms, 4),
                      "overhead_percent": round(overhead * 100, 2),
                      "toggle_plain_step_ms": round(toggle_plain_ms, 4),
                      "toggle_instrumented_step_ms": round(toggle_inst_ms, 4),
                      "toggle_overhead_percent": round(toggle_overhead * 100, 2),
                      "cpu_overhead_percent": round(cpu_overhead * 100, 2),
                      "cpu_overhead_us_per_step": round((cpu_inst_ms - cpu_plain_ms) * 1e3, 1),
                      "runs": args.runs, "frames_received": sink.frames}))


if __name__ == "__main__":
    main()
