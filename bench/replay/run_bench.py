#!/usr/bin/python3
"""Analyze throughput benchmark: `stallwatch analyze` (C++) next to a plain
Python + pandas implementation of the same metrics (pandas_summary.py), in one
run, on the shared traces (tests/data) and on a generated dftracer trace of at
least 1 GB (written to a temporary directory and deleted afterwards).

Prints a table, then one JSON line of headline figures. Throughput is reported
per wall second and per CPU second (user + system of the measured process);
on a shared machine the latter is what one core does. Peak RSS is the measured
process's own.

usage: run_bench.py --build BUILD_DIR [--gb 1.0] [--pandas-mb 120] [--keep]
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
    """Runs one benchmark process; returns its JSON line plus its own peak RSS."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{err}")
    result = json.loads(out.strip().splitlines()[-1])
    result["process_wall_seconds"] = wall
    return result


def peak_rss_mb(cmd: list[str]) -> float:
    """Peak RSS of a process, measured from outside (wait4)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        sys.exit(f"failed: {' '.join(cmd)}")
    return usage.ru_maxrss / 1024.0


def same_summary(a: dict, b: dict) -> bool:
    return all(abs(a[k] - b[k]) < 1e-6 for k in SUMMARY_KEYS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, help="build directory with bench_replay/ or bench/replay/")
    parser.add_argument("--gb", type=float, default=1.0, help="size of the generated trace (GB)")
    parser.add_argument("--pandas-mb", type=float, default=120.0,
                        help="size of the generated trace both paths run on (MB)")
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
    pandas = [sys.executable, os.path.join(HERE, "pandas_summary.py")]
    dlio = sorted(glob.glob(os.path.join(REPO, "tests/data/dftracer-dlio/*.pfw.gz")))
    kineto = [os.path.join(REPO, "tests/data/kineto/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")] + sorted(
        glob.glob(os.path.join(REPO, "tests/data/kineto/two-rank/*.json.gz")))

    tmp = tempfile.mkdtemp(prefix="replay-bench-")
    try:
        small_dir, big_dir = os.path.join(tmp, "small"), os.path.join(tmp, "big")
        os.makedirs(small_dir)
        os.makedirs(big_dir)
        subprocess.run([gen, small_dir, str(args.pandas_mb), "8"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([gen, big_dir, str(args.gb * 1000), "8"], check=True, stdout=subprocess.DEVNULL)
        small = sorted(glob.glob(os.path.join(small_dir, "*.pfw")))
        big = sorted(glob.glob(os.path.join(big_dir, "*.pfw")))

        rows = []

        def run(label: str, cmd: list[str]) -> dict:
            r = measure(cmd)
            r["label"] = label
            rows.append(r)
            return r

        cpp_dlio = run("C++ analyze, DLIO set (8 x .pfw.gz)", [bench, "--mapping", "dlio", *dlio])
        pd_dlio = run("pandas,      DLIO set", [*pandas, "--mapping", "dlio", *dlio])
        run("C++ analyze, Kineto set (3 x .json.gz, HTA)", [bench, *kineto])
        cpp_small = run(f"C++ analyze --no-engine, generated {args.pandas_mb:.0f} MB",
                        [bench, "--mapping", "dlio", "--no-engine", *small])
        run(f"C++ analyze (full),      generated {args.pandas_mb:.0f} MB", [bench, "--mapping", "dlio", *small])
        pd_small = run(f"pandas,                  generated {args.pandas_mb:.0f} MB",
                       [*pandas, "--mapping", "dlio", *small])
        cpp_big = run(f"C++ analyze --no-engine, generated {args.gb:.2f} GB",
                      [bench, "--mapping", "dlio", "--no-engine", *big])
        cpp_big_full = run(f"C++ analyze (full),      generated {args.gb:.2f} GB", [bench, "--mapping", "dlio", *big])
        pd_big = None
        if not args.no_pandas_on_big:
            pd_big = run(f"pandas,                  generated {args.gb:.2f} GB",
                         [*pandas, "--mapping", "dlio", *big])
        rss_small = peak_rss_mb([bench, "--mapping", "dlio", *small])
        rss_big = peak_rss_mb([bench, "--mapping", "dlio", *big])

        print(f"{'run':52} {'MB':>8} {'s':>7} {'MB/s':>8} {'MB/cpu-s':>9} {'events/s':>11} {'RSS MB':>7}")
        for r in rows:
            print(f"{r['label']:52} {r['mb']:8.1f} {r['seconds']:7.2f} {r['mb_per_s']:8.1f} "
                  f"{r['mb_per_cpu_s']:9.1f} {r['events_per_s']:11.0f} {r['peak_rss_mb']:7.1f}")
        matches = same_summary(cpp_dlio["summary"], pd_dlio["summary"]) and same_summary(
            cpp_small["summary"], pd_small["summary"])
        if pd_big is not None:
            matches = matches and same_summary(cpp_big["summary"], pd_big["summary"])
        print(f"pandas and C++ summaries agree on every input both ran: {matches}")
        print(f"peak RSS of full analyze: {rss_small:.1f} MB on {args.pandas_mb:.0f} MB, "
              f"{rss_big:.1f} MB on {args.gb:.2f} GB")
        cpp_ref, pd_ref, ref_label = (cpp_big, pd_big, f"{args.gb:.2f} GB") if pd_big else (
            cpp_small, pd_small, f"{args.pandas_mb:.0f} MB")
        speedup_wall = cpp_ref["mb_per_s"] / pd_ref["mb_per_s"]
        speedup_cpu = cpp_ref["mb_per_cpu_s"] / pd_ref["mb_per_cpu_s"]
        print(f"C++ (--no-engine) vs pandas on the same {ref_label}: {speedup_wall:.1f}x (wall), "
              f"{speedup_cpu:.1f}x (CPU)")
        print(json.dumps({
            "bench": "replay_analyze",
            "gb": round(cpp_big["mb"] / 1000, 3),
            "cpp_mb_per_s_1gb": round(cpp_big["mb_per_s"], 1),
            "cpp_mb_per_cpu_s_1gb": round(cpp_big["mb_per_cpu_s"], 1),
            "cpp_events_per_s_1gb": round(cpp_big["events_per_s"]),
            "cpp_full_mb_per_cpu_s_1gb": round(cpp_big_full["mb_per_cpu_s"], 1),
            "cpp_peak_rss_mb_1gb": round(rss_big, 1),
            "cpp_peak_rss_mb_small": round(rss_small, 1),
            "pandas_mb_per_s": round(pd_ref["mb_per_s"], 2),
            "pandas_mb_per_cpu_s": round(pd_ref["mb_per_cpu_s"], 2),
            "pandas_peak_rss_mb": round(pd_ref["peak_rss_mb"], 1),
            "speedup_measured_on": ref_label,
            "speedup_vs_pandas_wall": round(speedup_wall, 1),
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
