#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Speed and memory of `stallwatch analyze` on the Kineto traces in tests/data
(the largest we have: the ResNet trace, 1.1 MB gzip, 47 k events), whole
process, median of --runs runs, next to the floor of what HTA does first:
Python's json.load of the same file plus a pandas DataFrame of its events
(HTA's loader does both before any analysis, then more). HTA itself is not
installed here (no PyPI), so no HTA run is measured: the floor is a lower
bound of HTA's time and memory on the same file, not HTA's figures.

Runs, each a separate process:
  hta tables     stallwatch analyze FILE... --no-engine --json   (HTA's analyses only)
  full report    stallwatch analyze FILE... --batch-size 32 --json --html OUT (+ engine view)
  py floor       /usr/bin/python3: gzip + json.load + pandas.DataFrame(traceEvents)

Peak RSS is each process's own maximum resident set (wait4's ru_maxrss).

usage: run_hta_bench.py --build BUILD_DIR [--runs 5]
"""

from __future__ import annotations

import argparse
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


def run_once(cmd: list[str]) -> tuple[float, int]:
    """(wall seconds, peak RSS in KiB) of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{err}")
    return wall, usage.ru_maxrss


def measure(cmd: list[str], runs: int) -> tuple[float, int]:
    results = [run_once(cmd) for _ in range(runs)]
    return statistics.median(w for w, _ in results), max(r for _, r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, help="build directory (bin/stallwatch)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    stallwatch = os.path.join(args.build, "bin", "stallwatch")
    if not os.path.exists(stallwatch):
        sys.exit(f"{stallwatch}: not built")

    print(f"{'trace':<15} {'run':<12} {'wall ms':>9} {'peak RSS MB':>12} {'vs py floor':>22}")
    with tempfile.TemporaryDirectory() as tmp:
        html = os.path.join(tmp, "report.html")
        for label, names in CASES.items():
            files = [os.path.join(DATA, n) for n in names]
            floor = measure(["/usr/bin/python3", "-c", FLOOR, *files], args.runs)
            runs = {
                "hta tables": measure([stallwatch, "analyze", *files, "--no-engine", "--json"], args.runs),
                "full report": measure(
                    [stallwatch, "analyze", *files, "--batch-size", "32", "--json", "--html", html], args.runs),
            }
            for name, (wall, rss) in runs.items():
                ratio = f"{floor[0] / wall:.1f}x faster, {floor[1] / rss:.1f}x less"
                print(f"{label:<15} {name:<12} {wall * 1e3:9.1f} {rss / 1024:12.1f} {ratio:>22}")
            print(f"{label:<15} {'py floor':<12} {floor[0] * 1e3:9.1f} {floor[1] / 1024:12.1f}")


if __name__ == "__main__":
    main()
