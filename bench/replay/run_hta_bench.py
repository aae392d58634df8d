#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Speed and memory of `stallwatch analyze` on the Kineto traces in tests/data
(the largest we have: the ResNet trace, 1.1 MB gzip, 47 k events), whole
process, median of --runs runs.

Without --hta-src it compares with a floor of what HTA does first: Python's
json.load of the same file plus a pandas DataFrame of its events (HTA's loader
does both before any analysis, then more); the floor is a lower bound of HTA's
time and memory, not HTA's figures.

With --hta-src DIR it also runs the real HTA (Holistic Trace Analysis) from
its source: for each trace and each analysis, a separate process that does what
a user does, `TraceAnalysis(trace_files=..., trace_dir=...)` then the one call
(visualize=False), next to a `stallwatch analyze` process producing that table,
the two interleaved run after run. `stallwatch analyze` has no option to compute
one HTA table alone, so its process is the same every time: all of HTA's tables
(`--no-engine --json`); each ratio is therefore against stallwatch doing all of
them. The ranks are given to HTA as trace_files={rank: file} so that it does not
read every file once more to learn its rank.

Setting up HTA (no PyPI needed): a checkout of HTA v0.6.1
(github.com/facebookresearch/HolisticTraceAnalysis, tag v0.6.1) and its Python
dependencies from Debian 12: python3-pandas (1.5.3), python3-numpy,
python3-plotly, python3-yaml, python3-psutil (apt-get install ...). Run with
/usr/bin/python3; DIR is the checkout's root (the folder holding hta/). The
tables HTA v0.6.1 prints for these traces are in tests/data/kineto/hta-reference.

Runs, each a separate process:
  hta tables     stallwatch analyze FILE... --no-engine --json   (HTA's analyses only)
  full report    stallwatch analyze FILE... --batch-size 32 --json --html OUT (+ engine view)
  py floor       /usr/bin/python3: gzip + json.load + pandas.DataFrame(traceEvents)
  HTA <analysis> /usr/bin/python3 with DIR on sys.path: load + that analysis

Each process is started through the bench's launcher bench/replay/peak_rss
(built with the benchmarks), which forks it from a small process and reports
wall time from fork to exit and wait4's ru_maxrss: the largest resident set of
the process and of its waited-for children (HTA parses two or more ranks in a
pool of worker processes; their memory is not added up, so HTA's figure is a
lower bound when it forks). Started from Python directly, any program would
read at least the Python bench's own resident set (~15 MB: Linux keeps the
high-water mark of the memory a process had before exec). Memory ratio = HTA /
stallwatch peak RSS, speed ratio = HTA / stallwatch wall time. The machine's
other load is not controlled: run it on a quiet one for figures to quote, and
from the release preset (--build build/release) for what the package gives.
Where the CPUs do not run at the same speed (a VM's vCPUs may not: one that
shares its core on the host runs slower), whichever a process lands on decides
its time; pin the whole run to one CPU (taskset -c 0 run_hta_bench.py ...),
and every process, HTA's and stallwatch's, runs there.

With --baseline EXE (another build of stallwatch, e.g. of an older commit),
that executable runs the same command interleaved with the two, and its
figures and ratios stand beside them: before and after in one run.

usage: run_hta_bench.py --build BUILD_DIR [--runs 5] [--hta-src DIR] [--baseline EXE] [--json-only]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(REPO, "tests", "data", "kineto")
CASES = {
    "resnet rank 0": ["rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"],
    "two ranks": ["two-rank/sampled_rank-0.json.gz", "two-rank/sampled_rank-1.json.gz"],
}
FLOOR = (
    "import gzip, json, sys, pandas\n"
    "for path in sys.argv[1:]:\n"
    "    with gzip.open(path) as f:\n"
    "        events = json.load(f)['traceEvents']\n"
    "    frame = pandas.DataFrame(events)\n"
)
# HTA's calls, as TraceAnalysis names them, with the arguments that print the
# tables stallwatch reproduces (plots off). "load" is the constructor alone.
HTA_CALLS = {
    "load": "",
    "temporal breakdown": "a.get_temporal_breakdown(visualize=False)",
    # HTA's default (no interval statistics): stallwatch gives the per-stream,
    # per-category sums, not HTA's describe() of the intervals.
    "idle time breakdown": "a.get_idle_time_breakdown(ranks=ranks, visualize=False)",
    "comm/comp overlap": "a.get_comm_comp_overlap(visualize=False)",
    "kernel breakdown": "a.get_gpu_kernel_breakdown(visualize=False)",
    "launch stats": "a.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)",
    "queue length": "a.get_queue_length_summary(ranks=ranks)",
}
HTA_DRIVER = (
    "import os, sys\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "from hta.trace_analysis import TraceAnalysis\n"
    "files = dict(enumerate(sys.argv[3:]))\n"
    "a = TraceAnalysis(trace_files=files, trace_dir=os.path.dirname(sys.argv[3]))\n"
    "ranks = a.t.get_ranks()\n"
    "result = eval(sys.argv[2]) if sys.argv[2] else None\n"
)


PEAK_RSS = ""  # the launcher (bench/replay/peak_rss in the build tree), set in main()


def run_once(cmd: list[str]) -> tuple[float, int]:
    """(wall seconds, peak RSS in KiB) of one process, measured by the launcher."""
    proc = subprocess.Popen([PEAK_RSS, *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # Drain stderr while it runs (HTA logs a line per step); the launcher's
    # line comes last.
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    proc.wait()
    lines = err.rstrip("\n").split("\n")
    fields = dict(f.split("=", 1) for f in lines[-1].split()[1:]) if lines[-1].startswith("peak_rss:") else {}
    if proc.returncode != 0 or "wall_s" not in fields:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{err[-4000:]}")
    return float(fields["wall_s"]), int(fields["maxrss_kib"])


def summary(results: list[tuple[float, int]]) -> tuple[float, int]:
    """Median wall seconds and the largest peak RSS (KiB) of several runs."""
    return statistics.median(w for w, _ in results), max(r for _, r in results)


def measure(cmd: list[str], runs: int) -> tuple[float, int]:
    return summary([run_once(cmd) for _ in range(runs)])


def floor_table(stallwatch: str, runs: int, quiet: bool) -> dict:
    out: dict = {}
    if not quiet:
        print(f"{'trace':<15} {'run':<12} {'wall ms':>9} {'peak RSS MB':>12} {'vs py floor':>22}")
    with tempfile.TemporaryDirectory() as tmp:
        html = os.path.join(tmp, "report.html")
        for label, names in CASES.items():
            files = [os.path.join(DATA, n) for n in names]
            floor = measure(["/usr/bin/python3", "-c", FLOOR, *files], runs)
            rows = {
                "hta tables": measure([stallwatch, "analyze", *files, "--no-engine", "--json"], runs),
                "full report": measure(
                    [stallwatch, "analyze", *files, "--batch-size", "32", "--json", "--html", html], runs),
            }
            out[label] = {"py_floor": {"wall_ms": floor[0] * 1e3, "peak_rss_kib": floor[1]}}
            for name, (wall, rss) in rows.items():
                out[label][name] = {"wall_ms": wall * 1e3, "peak_rss_kib": rss}
                if not quiet:
                    ratio = f"{floor[0] / wall:.1f}x faster, {floor[1] / rss:.1f}x less"
                    print(f"{label:<15} {name:<12} {wall * 1e3:9.1f} {rss / 1024:12.1f} {ratio:>22}")
            if not quiet:
                print(f"{label:<15} {'py floor':<12} {floor[0] * 1e3:9.1f} {floor[1] / 1024:12.1f}")
    return out


def check_hta(hta_src: str) -> None:
    if not os.path.isfile(os.path.join(hta_src, "hta", "trace_analysis.py")):
        sys.exit(f"--hta-src {hta_src}: no hta/trace_analysis.py there (give the checkout's root)")
    probe = subprocess.run(
        ["/usr/bin/python3", "-c", f"import sys; sys.path.insert(0, {hta_src!r}); import hta.trace_analysis"],
        capture_output=True, text=True)
    if probe.returncode != 0:
        sys.exit(f"--hta-src {hta_src}: HTA does not import with /usr/bin/python3:\n{probe.stderr[-2000:]}")


def hta_table(stallwatch: str, hta_src: str, runs: int, quiet: bool, baseline: str | None) -> dict:
    out: dict = {}
    if not quiet:
        print()
        base_head = f" {'base ms':>8} {'base MB':>8} {'speed':>7} {'memory':>7}" if baseline else ""
        print(f"{'trace':<15} {'analysis':<20} {'HTA ms':>9} {'sw ms':>7} {'speed':>8} "
              f"{'HTA MB':>8} {'sw MB':>7} {'memory':>8}{base_head}")
    for label, names in CASES.items():
        files = [os.path.join(DATA, n) for n in names]
        sw_cmd = [stallwatch, "analyze", *files, "--no-engine", "--json"]
        hta_runs: dict[str, list[tuple[float, int]]] = {a: [] for a in HTA_CALLS}
        sw_runs: dict[str, list[tuple[float, int]]] = {a: [] for a in HTA_CALLS}
        base_runs: dict[str, list[tuple[float, int]]] = {a: [] for a in HTA_CALLS}
        for _ in range(runs):  # interleaved: HTA, stallwatch[, baseline], next analysis, ...
            for analysis, call in HTA_CALLS.items():
                hta_runs[analysis].append(
                    run_once(["/usr/bin/python3", "-c", HTA_DRIVER, hta_src, call, *files]))
                sw_runs[analysis].append(run_once(sw_cmd))
                if baseline:
                    base_runs[analysis].append(run_once([baseline, *sw_cmd[1:]]))
        out[label] = {}
        for analysis in HTA_CALLS:
            h_wall, h_rss = summary(hta_runs[analysis])
            s_wall, s_rss = summary(sw_runs[analysis])
            row = {
                "hta_wall_ms": h_wall * 1e3, "hta_peak_rss_kib": h_rss,
                "stallwatch_wall_ms": s_wall * 1e3, "stallwatch_peak_rss_kib": s_rss,
                "speed_ratio": h_wall / s_wall, "memory_ratio": h_rss / s_rss,
            }
            base_cols = ""
            if baseline:
                b_wall, b_rss = summary(base_runs[analysis])
                row.update({"baseline_wall_ms": b_wall * 1e3, "baseline_peak_rss_kib": b_rss,
                            "baseline_speed_ratio": h_wall / b_wall,
                            "baseline_memory_ratio": h_rss / b_rss})
                base_cols = (f" {b_wall * 1e3:8.1f} {b_rss / 1024:8.1f} {h_wall / b_wall:6.1f}x"
                             f" {h_rss / b_rss:6.1f}x")
            out[label][analysis] = row
            if not quiet:
                print(f"{label:<15} {analysis:<20} {h_wall * 1e3:9.1f} {s_wall * 1e3:7.1f} "
                      f"{row['speed_ratio']:7.1f}x {h_rss / 1024:8.1f} {s_rss / 1024:7.1f} "
                      f"{row['memory_ratio']:7.1f}x{base_cols}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True,
                        help="build directory (bin/stallwatch, bench/replay/peak_rss)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--hta-src", help="root of an HTA v0.6.1 source checkout: also run the real HTA")
    parser.add_argument("--baseline", help="another stallwatch executable (an older build) to run "
                        "interleaved with HTA and this one, side by side")
    parser.add_argument("--json-only", action="store_true", help="print only the JSON line")
    args = parser.parse_args()
    if args.runs < 1:
        sys.exit("--runs must be at least 1")
    stallwatch = os.path.join(args.build, "bin", "stallwatch")
    if not os.path.exists(stallwatch):
        sys.exit(f"{stallwatch}: not built")
    global PEAK_RSS
    PEAK_RSS = os.path.join(args.build, "bench", "replay", "peak_rss")
    if not os.path.exists(PEAK_RSS):
        sys.exit(f"{PEAK_RSS}: not built (cmake --build BUILD_DIR --target peak_rss)")
    hta_src = os.path.abspath(args.hta_src) if args.hta_src else None
    if hta_src:
        check_hta(hta_src)

    doc = {"runs": args.runs, "cpus": os.cpu_count(), "load_avg_1m_start": os.getloadavg()[0]}
    doc["floor"] = floor_table(stallwatch, args.runs, args.json_only)
    if hta_src:
        doc["hta"] = hta_table(stallwatch, hta_src, args.runs, args.json_only, args.baseline)
    doc["load_avg_1m_end"] = os.getloadavg()[0]
    if not args.json_only:
        print(f"\nload average (1 min) {doc['load_avg_1m_start']:.2f} at start, "
              f"{doc['load_avg_1m_end']:.2f} at end, {doc['cpus']} CPUs")
    print(json.dumps(doc, separators=(",", ":")))


if __name__ == "__main__":
    main()
