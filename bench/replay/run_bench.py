#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Analyze throughput benchmark: `stallwatch analyze` (C++, in process through
replay_analyze_bench) next to a plain Python + pandas implementation of the
same DFAnalyzer metrics (pandas_summary.py), side by side in one run, on the
shared traces (tests/data, file by file and as sets) and on generated dftracer
traces (a small one and one of at least 1 GB, written to a temporary directory
and deleted afterwards).

Every C++ run is the default invocation (`stallwatch analyze FILE...`, which
includes stallwatch's own engine view) unless its label says otherwise:
  all CPUs   ranks read in parallel, one reading thread per available CPU
  one core   the same, pinned to CPU 0 with taskset (so it reads sequentially)
  --no-engine  DFAnalyzer/HTA parts only (pinned to one core too)

Throughput is reported per wall second and per CPU second (user + system of
the measured process, all its threads); on a shared machine the latter is what
the cores did. Peak RSS is the measured process's own (all threads).

Prints a table, then one JSON line of headline figures.

usage: run_bench.py --build BUILD_DIR [--gb 1.0] [--pandas-mb 120]
                    [--no-pandas-on-big] [--keep]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SUMMARY_KEYS = ("job_time_seconds", "compute_seconds", "app_io_seconds", "io_seconds", "fetch_seconds",
                "unoverlapped_app_io_seconds", "unoverlapped_io_seconds", "unoverlapped_compute_seconds")


def measure(cmd: list[str]) -> dict:
    """Runs one benchmark process; returns its JSON line."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{err}")
    result = json.loads(out.strip().splitlines()[-1])
    result["process_wall_seconds"] = wall
    return result


def same_summary(a: dict, b: dict) -> bool:
    return all(abs(a[k] - b[k]) < 1e-6 for k in SUMMARY_KEYS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, help="build directory with bench/replay/")
    parser.add_argument("--gb", type=float, default=1.0, help="size of the generated trace (GB)")
    parser.add_argument("--pandas-mb", type=float, default=120.0,
                        help="size of the small generated trace (MB)")
    parser.add_argument("--keep", action="store_true", help="keep the generated traces")
    parser.add_argument("--no-pandas-on-big", action="store_true",
                        help="skip the pandas run on the big trace (it needs ~3 GB of RAM per GB)")
    args = parser.parse_args()

    def binary(name: str) -> str:
        for sub in ("bench/replay", "bench_replay"):
            path = os.path.join(args.build, sub, name)
            if os.path.exists(path):
                return path
        sys.exit(f"{name} not found under {args.build} (build the replay bench targets)")

    gen, bench = binary("replay_trace_gen"), binary("replay_analyze_bench")
    pinned = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    one_core = [*pinned, bench] if pinned else [bench, "--threads", "1"]
    pandas = [sys.executable, os.path.join(HERE, "pandas_summary.py")]
    dlio = sorted(glob.glob(os.path.join(REPO, "tests/data/dftracer-dlio/*.pfw.gz")))
    kineto = [os.path.join(REPO, "tests/data/kineto/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")] + sorted(
        glob.glob(os.path.join(REPO, "tests/data/kineto/two-rank/*.json.gz")))
    cpus = len(os.sched_getaffinity(0))

    tmp = tempfile.mkdtemp(prefix="replay-bench-")
    try:
        small_dir, big_dir = os.path.join(tmp, "small"), os.path.join(tmp, "big")
        os.makedirs(small_dir)
        os.makedirs(big_dir)
        subprocess.run([gen, small_dir, str(args.pandas_mb), "8"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([gen, big_dir, str(args.gb * 1000), "8"], check=True, stdout=subprocess.DEVNULL)
        small = sorted(glob.glob(os.path.join(small_dir, "*.pfw")))
        big = sorted(glob.glob(os.path.join(big_dir, "*.pfw")))
        small_label, big_label = f"generated {args.pandas_mb:.0f} MB", f"generated {args.gb:.2f} GB"

        rows = []
        matches = True

        def run(label: str, cmd: list[str]) -> dict:
            r = measure(cmd)
            r["label"] = label
            rows.append(r)
            return r

        def versus(cpp: dict, py: dict) -> None:
            nonlocal matches
            matches = matches and same_summary(cpp["summary"], py["summary"])

        for path in dlio:
            name = os.path.basename(path)
            versus(run(f"C++ analyze,  {name}", [bench, "--mapping", "dlio", path]),
                   run(f"pandas,       {name}", [*pandas, "--mapping", "dlio", path]))
        for path in kineto:
            run(f"C++ analyze,  {os.path.basename(path)[:32]} (HTA)", [bench, path])
        versus(run("C++ analyze,  DLIO set (8 x .pfw.gz), all CPUs", [bench, "--mapping", "dlio", *dlio]),
               run("pandas,       DLIO set", [*pandas, "--mapping", "dlio", *dlio]))
        run("C++ analyze,  Kineto set (3 x .json.gz, HTA)", [bench, *kineto])

        cpp_small = run(f"C++ analyze,  {small_label}, all CPUs", [bench, "--mapping", "dlio", *small])
        cpp_small_one = run(f"C++ analyze,  {small_label}, one core", [*one_core, "--mapping", "dlio", *small])
        pd_small = run(f"pandas,       {small_label}", [*pandas, "--mapping", "dlio", *small])
        versus(cpp_small, pd_small)
        versus(cpp_small_one, pd_small)

        cpp_big = run(f"C++ analyze,  {big_label}, all CPUs", [bench, "--mapping", "dlio", *big])
        cpp_big_one = run(f"C++ analyze,  {big_label}, one core", [*one_core, "--mapping", "dlio", *big])
        cpp_big_summary = run(f"C++ --no-engine, {big_label}, one core",
                              [*one_core, "--mapping", "dlio", "--no-engine", *big])
        versus(cpp_big, cpp_big_summary)
        pd_big = None
        if not args.no_pandas_on_big:
            pd_big = run(f"pandas,       {big_label}", [*pandas, "--mapping", "dlio", *big])
            versus(cpp_big, pd_big)

        print(f"{'run':58} {'MB':>8} {'s':>7} {'MB/s':>8} {'MB/cpu-s':>9} {'events/s':>11} {'RSS MB':>7}")
        for r in rows:
            print(f"{r['label']:58} {r['mb']:8.1f} {r['seconds']:7.2f} {r['mb_per_s']:8.1f} "
                  f"{r['mb_per_cpu_s']:9.1f} {r['events_per_s']:11.0f} {r['peak_rss_mb']:7.1f}")
        print(f"DFAnalyzer summaries agree on every pair compared (C++ vs pandas, all CPUs vs one core): {matches}")
        cpp_ref, cpp_ref_one, pd_ref, ref_label = (
            (cpp_big, cpp_big_one, pd_big, big_label) if pd_big else
            (cpp_small, cpp_small_one, pd_small, small_label))
        speedup_wall = cpp_ref["mb_per_s"] / pd_ref["mb_per_s"]
        speedup_one_core = cpp_ref_one["mb_per_s"] / pd_ref["mb_per_s"]
        speedup_cpu = cpp_ref_one["mb_per_cpu_s"] / pd_ref["mb_per_cpu_s"]
        print(f"C++ analyze vs pandas on the same {ref_label}: {speedup_wall:.1f}x wall on {cpus} CPUs, "
              f"{speedup_one_core:.1f}x wall on one core each, {speedup_cpu:.1f}x per CPU-second")
        print(json.dumps({
            "bench": "replay_analyze",
            "gb": round(cpp_big["mb"] / 1000, 3),
            "cpus": cpus,
            "analyze_mb_per_s_1gb": round(cpp_big["mb_per_s"], 1),
            "analyze_mb_per_cpu_s_1gb": round(cpp_big["mb_per_cpu_s"], 1),
            "analyze_events_per_s_1gb": round(cpp_big["events_per_s"]),
            "one_core_mb_per_s_1gb": round(cpp_big_one["mb_per_s"], 1),
            "one_core_mb_per_cpu_s_1gb": round(cpp_big_one["mb_per_cpu_s"], 1),
            "one_core_events_per_s_1gb": round(cpp_big_one["events_per_s"]),
            "no_engine_one_core_mb_per_cpu_s_1gb": round(cpp_big_summary["mb_per_cpu_s"], 1),
            "peak_rss_mb_1gb": round(cpp_big["peak_rss_mb"], 1),
            "peak_rss_mb_one_core_1gb": round(cpp_big_one["peak_rss_mb"], 1),
            "peak_rss_mb_small": round(cpp_small["peak_rss_mb"], 1),
            "pandas_mb_per_s": round(pd_ref["mb_per_s"], 2),
            "pandas_mb_per_cpu_s": round(pd_ref["mb_per_cpu_s"], 2),
            "pandas_peak_rss_mb": round(pd_ref["peak_rss_mb"], 1),
            "speedup_measured_on": ref_label,
            "speedup_vs_pandas_wall": round(speedup_wall, 1),
            "speedup_vs_pandas_one_core": round(speedup_one_core, 1),
            "speedup_vs_pandas_cpu": round(speedup_cpu, 1),
            "summaries_match": matches,
        }))
    finally:
        if args.keep:
            print(f"traces kept in {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
